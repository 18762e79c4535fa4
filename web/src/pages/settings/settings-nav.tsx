import { useEffect, useRef, type ReactNode } from 'react';
import { Link } from '@tanstack/react-router';
import { useMe } from '../../api/queries';

const ITEMS = [
  { to: '/settings', label: 'Profile' },
  { to: '/settings/api-keys', label: 'API keys' },
  { to: '/settings/sessions', label: 'Sessions' },
  { to: '/settings/members', label: 'Members', manage: 'manage_members' },
  { to: '/settings/webhooks', label: 'Webhooks', manage: 'manage_webhooks' },
] as const;

export function SettingsNav() {
  const me = useMe();
  // Members and Webhooks are tabs for those who manage them (getMe's abilities); others still reach Members by its URL.
  const abilities = me.data?.abilities;
  const nav = useRef<HTMLElement>(null);
  // On a phone the tabs scroll sideways: keep the current one in sight.
  useEffect(() => {
    nav.current?.querySelector('[aria-current="page"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [abilities]);
  return (
    <nav ref={nav} aria-label="Settings" className="segmented settings-nav">
      {ITEMS.filter((i) => !('manage' in i) || (abilities?.[i.manage] ?? false)).map((i) => (
        <Link key={i.to} to={i.to} activeOptions={{ exact: true }} activeProps={{ 'aria-current': 'page' }}>
          {i.label}
        </Link>
      ))}
    </nav>
  );
}

/** A settings page: the heading, the settings tabs, then the page's own content. */
export function SettingsPage({ children }: { children: ReactNode }) {
  return (
    <section className="page narrow">
      <div className="page-head">
        <h1>Settings</h1>
        <SettingsNav />
      </div>
      {children}
    </section>
  );
}
