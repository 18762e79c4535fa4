export function SessionsPage() { return <p>todo</p>; }
