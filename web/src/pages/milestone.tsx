export function MilestonePage() { return <p>todo</p>; }
