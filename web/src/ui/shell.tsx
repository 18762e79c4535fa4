import { Link, Outlet, useMatches } from '@tanstack/react-router';
import { useMe } from '../api/queries';
import { ErrorPanel } from './error-panel';
import { OfflineBanner } from './offline-banner';
import { useDocumentTitle } from './page-title';
import { Toasts } from './toasts';
import { initials } from '../lib/people';
import { PaletteHost } from '../palette/palette-host';
import { NAV } from './nav';


export function Shell() {
  const me = useMe();
  const matches = useMatches();
  useDocumentTitle(matches[matches.length - 1]?.staticData.title);
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand" aria-label="tack, home">
          <svg viewBox="0 0 32 32" width="22" height="22" aria-hidden="true">
            <rect width="32" height="32" rx="7" fill="var(--accent)" />
            <path d="M9 10h14M16 10v13" stroke="#fff" strokeWidth="3.5" strokeLinecap="round" />
          </svg>
          tack
        </Link>
        <nav aria-label="Main" className="mainnav">
          {NAV.map((item) => (
            <Link key={item.to} to={item.to} className="navlink" activeProps={{ 'aria-current': 'page', className: 'navlink active' }}>
              {item.label}
            </Link>
          ))}
        </nav>
        <PaletteHost />
        {me.data && (
          <Link to="/settings" className="avatar" title={`${me.data.member.name} · ${me.data.org.name}`} aria-label={`Profile of ${me.data.member.name}`}>
            {initials(me.data.member.name)}
          </Link>
        )}
      </header>
      <OfflineBanner />
      <main id="main" className="main" tabIndex={-1}>
        {me.isError && !me.data ? <ErrorPanel error={me.error} retry={() => void me.refetch()} /> : <Outlet />}
      </main>
      <Toasts />
    </>
  );
}
