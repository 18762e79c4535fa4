export function MilestonesPage() { return <p>todo</p>; }
