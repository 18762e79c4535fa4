/**
 * The pages tack renders itself: sign-in (so a link works without the app's JavaScript, and
 * before the app is built) and the stand-in for an app that is not built. Every value is
 * escaped; there is no script at all.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const STYLE = `
/* The web app's own colours (web/src/styles.css), so signing in looks like the app it opens. */
:root { color-scheme: light dark; --fg: #1c1c22; --muted: #5c5c6b; --bg: #f7f7f8; --card: #fff; --accent: #4f46e5; --accent-text: #fff; --line: #dcdce3; }
@media (prefers-color-scheme: dark) { :root { --fg: #ececf1; --muted: #a3a3b2; --bg: #111114; --card: #1a1a1f; --accent: #8b84ff; --accent-text: #0f0f14; --line: #34343e; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { width: min(26rem, calc(100vw - 2rem)); background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 2rem; }
h1 { font-size: 1.4rem; margin: 0 0 .75rem; }
p { margin: 0 0 1rem; color: var(--muted); }
code { font-size: .9em; }
button { font: inherit; font-weight: 600; width: 100%; padding: .7rem 1rem; border: 0; border-radius: 8px; background: var(--accent); color: var(--accent-text); cursor: pointer; }
button:focus-visible { outline: 3px solid var(--fg); outline-offset: 2px; }
`;

export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)} · tack</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

const HOW_TO_GET_A_LINK =
  '<p>Get a sign-in link with <code>tack signin-link</code>, with <code>/tack login</code> in Slack, or from an admin of your organization.</p>';

/**
 * GET /signin?code=…: whom the link signs in, where, and a button, so opening the link (a
 * scanner, an unfurler) signs nobody in.
 */
export function signinPage(link: { code: string; member: string; org: string } | undefined, next: string | undefined): string {
  if (link === undefined) {
    return htmlPage('Sign in', `<h1>Sign in to tack</h1>\n${HOW_TO_GET_A_LINK}`);
  }
  const { code } = link;
  const nextField = next ? `\n<input type="hidden" name="next" value="${escapeHtml(next)}">` : '';
  return htmlPage(
    'Sign in',
    `<h1>Sign in to tack</h1>
<p>This link signs you in as <strong>${escapeHtml(link.member)}</strong> in <strong>${escapeHtml(link.org)}</strong>, once, in this browser. If you are signed in here already, that session ends.</p>
<form method="post" action="/signin">
<input type="hidden" name="code" value="${escapeHtml(code)}">${nextField}
<button type="submit">Sign in</button>
</form>`,
  );
}

/** POST /signin with a used, expired or unknown code. */
export function invalidCodePage(): string {
  return htmlPage('Sign-in link not valid', `<h1>This sign-in link does not work</h1>\n<p>It was already used, has expired (links last 15 minutes), or is not a tack link.</p>\n${HOW_TO_GET_A_LINK}`);
}

/** A sign-in or sign-out form posted from another site. */
export function crossSitePage(): string {
  return htmlPage('Not signed in', '<h1>Request refused</h1>\n<p>This form was sent from another site. Open the sign-in link itself and press Sign in.</p>');
}

/** What page URLs answer while `dist/web` holds no build (tests, a fresh checkout before `npm run build`). */
export function notBuiltPage(): string {
  return htmlPage(
    'Web app not built',
    '<h1>The web app is not built</h1>\n<p>Run <code>npm run build</code>, then start tack again. The API answers at <code>/v1</code> meanwhile.</p>',
  );
}
