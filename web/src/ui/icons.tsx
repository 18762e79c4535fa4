export function LockIcon({ label }: { label?: string }) {
  return (
    <svg viewBox="0 0 16 16" width="12" height="12" role={label ? 'img' : undefined} aria-label={label} aria-hidden={label ? undefined : true}>
      <path fill="currentColor" d="M4 7V5a4 4 0 1 1 8 0v2h.5A1.5 1.5 0 0 1 14 8.5v5a1.5 1.5 0 0 1-1.5 1.5h-9A1.5 1.5 0 0 1 2 13.5v-5A1.5 1.5 0 0 1 3.5 7H4Zm2 0h4V5a2 2 0 1 0-4 0v2Z" />
    </svg>
  );
}
