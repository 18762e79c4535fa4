export function ApiKeysPage() { return <p>todo</p>; }
