export function CardPage() { return <p>todo</p>; }
