import { Link } from '@tanstack/react-router';

export function NotFound() {
  return (
    <section className="page narrow">
      <h1>Page not found</h1>
      <p className="muted">Nothing lives at this address.</p>
      <p>
        <Link to="/boards">Go to your boards</Link>
      </p>
    </section>
  );
}
