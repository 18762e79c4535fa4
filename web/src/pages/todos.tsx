export function TodosPage() { return <p>todo</p>; }
