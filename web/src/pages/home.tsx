import { useEffect } from 'react';
import { useNavigate, useRouter } from '@tanstack/react-router';
import { useBoards } from '../api/queries';
import { takeReturn } from '../api/signin-return';
import { ErrorPanel, Loading } from '../ui/error-panel';

/** `/`: back to where the person was before signing in, else their first board. */
export function Home() {
  const navigate = useNavigate();
  const router = useRouter();
  const boards = useBoards();
  // The organization's first board (the list is newest first).
  const first = boards.data?.[boards.data.length - 1];
  useEffect(() => {
    const back = takeReturn();
    if (back && back !== '/') {
      router.history.replace(back);
      return;
    }
    if (boards.isSuccess) {
      if (first) void navigate({ to: '/boards/$slug', params: { slug: first.slug }, replace: true });
      else void navigate({ to: '/boards', replace: true });
    }
  }, [boards.isSuccess, first, navigate, router]);
  if (boards.isError) return <ErrorPanel error={boards.error} retry={() => void boards.refetch()} />;
  return <Loading />;
}
