export function MembersPage() { return <p>todo</p>; }
