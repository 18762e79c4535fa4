export function SnippetPage() { return <p>todo</p>; }
