export function ProfilePage() { return <p>todo</p>; }
