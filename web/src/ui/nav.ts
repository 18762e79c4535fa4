/** The app's places, in the order the top bar shows them (the palette offers them too). */
export const NAV = [
  { to: '/boards', label: 'Boards' },
  { to: '/todos', label: 'Todos' },
  { to: '/snippets', label: 'Snippets' },
  { to: '/milestones', label: 'Milestones' },
  { to: '/settings', label: 'Settings' },
] as const;
