export function SnippetsPage() { return <p>todo</p>; }
