import { useEffect, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import { keys } from '../../api/queries';

type Kind = 'assigned' | 'mentioned' | 'card_activity' | 'agent_requests';

const KINDS: { id: Kind; label: string }[] = [
  { id: 'assigned', label: 'A card is assigned to me' },
  { id: 'mentioned', label: "Someone mentions me in a comment or a card's description" },
  { id: 'card_activity', label: 'Someone else moves or comments on a card I am assigned' },
  { id: 'agent_requests', label: 'An agent is refused a move to Done on my card (with a Move to done button)' },
];

/**
 * The member's personal notifications by Slack DM, one switch per kind (contract §11): each
 * change is saved at once, through updateMember's `notifications` (kinds left out keep theirs).
 */
export function NotificationSettings({ memberId, settings, linked }: { memberId: string; settings: Record<Kind, boolean>; linked: boolean }) {
  const qc = useQueryClient();
  // Shown as pressed at once; the API's answer (getMe read again) is what stays.
  const [shown, setShown] = useState(settings);
  useEffect(() => setShown(settings), [settings]);
  const save = useMutation({
    mutationFn: (change: Partial<Record<Kind, boolean>>) => ok(api.PATCH('/members/{id}', { params: { path: { id: memberId } }, body: { notifications: change } })),
    onMutate: (change) => setShown((now) => ({ ...now, ...change })),
    onError: () => setShown(settings),
    onSettled: () => qc.invalidateQueries({ queryKey: keys.me }),
  });
  return (
    <section className="panel" aria-labelledby="notify-h" style={{ marginTop: 16 }}>
      <h2 id="notify-h" style={{ marginTop: 0 }}>
        Notifications
      </h2>
      <p className="muted small">
        Sent to you by Slack DM, grouped within a minute{linked ? '' : ' (once your Slack account is linked)'}. Also <code>/tack notify</code> in Slack.
      </p>
      {KINDS.map((k) => (
        <label key={k.id} className="check-row">
          <input
            type="checkbox"
            name={k.id}
            checked={shown[k.id]}
            disabled={save.isPending}
            onChange={(e) => save.mutate({ [k.id]: e.target.checked })}
          />{' '}
          {k.label}
        </label>
      ))}
    </section>
  );
}
