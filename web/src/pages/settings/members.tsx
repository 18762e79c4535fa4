import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, ok } from '../../api/client';
import { keys, useMe, useMembers } from '../../api/queries';
import type { Member, Role } from '../../api/types';
import { formatDateTime } from '../../lib/dates';
import { CopyField } from '../../ui/copy-field';
import { ConfirmDialog, FormDialog } from '../../ui/dialogs';
import { ErrorPanel, Loading } from '../../ui/error-panel';
import { FieldErrors } from '../../ui/field-errors';
import { SelectField } from '../../ui/select-field';
import { notify } from '../../ui/toast-queue';
import { SettingsPage } from './settings-nav';

const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];
const label = (r: Role) => r[0]!.toUpperCase() + r.slice(1);

/** Every role, those outside `allowed` (but the current one) shown refused. */
function roleOptions(allowed: readonly Role[], current?: Role) {
  return ROLES.map((r) => ({ id: r, label: label(r), refused: r === current || allowed.includes(r) ? undefined : 'not allowed for you' }));
}

export function MembersPage() {
  const me = useMe();
  const members = useMembers();
  const qc = useQueryClient();
  // What the caller may do comes from the API (getMe's and each member's `abilities`, judged
  // by the very checks the writes run): the ladder, the last owner and the scopes live there.
  // A refusal it gives anyway (the list changed meanwhile) is shown like any failed write.
  const setRole = useMutation({
    mutationFn: ({ m, role }: { m: Member; role: Role }) => ok(api.PATCH('/members/{id}', { params: { path: { id: m.id } }, body: { role } })),
    onSettled: () => qc.invalidateQueries({ queryKey: keys.members }),
  });
  return (
    <SettingsPage>
      <div className="row spread">
        <h2>Members</h2>
        {me.data?.abilities.manage_members && <AddMember roleOptions={roleOptions(me.data.abilities.grant_roles)} />}
      </div>
      {members.isError && <ErrorPanel error={members.error} retry={() => void members.refetch()} />}
      {members.isPending && <Loading />}
      {members.data && (
        <ul className="list list-box" aria-label="Members">
          {members.data.map((m) => (
            <li key={m.id} data-member={m.id}>
              <div className="grow">
                <div>
                  {m.name} {m.id === me.data?.member.id && <span className="chip">you</span>}
                </div>
                <div className="muted small">
                  {m.email ?? 'no e-mail'} · {m.slack_user_id ? `Slack ${m.slack_user_id}` : 'not on Slack'} · since {formatDateTime(m.created_at)}
                </div>
              </div>
              <SelectField
                label={`Role of ${m.name}`}
                hideLabel
                value={m.role}
                options={roleOptions(m.abilities.change_role, m.role)}
                isDisabled={m.abilities.change_role.length === 0}
                onChange={(r) => r !== m.role && setRole.mutate({ m, role: r as Role })}
              />
              <div className="member-actions">
                {m.abilities.make_signin_link && <SigninLink member={m} />}
                {m.abilities.remove && <RemoveMember member={m} self={m.id === me.data?.member.id} orgName={me.data?.org.name ?? 'the organization'} />}
              </div>
            </li>
          ))}
        </ul>
      )}
    </SettingsPage>
  );
}

/** Remove, after a confirmation that says what goes with the member (deleteMember's cascade). */
function RemoveMember({ member, self, orgName }: { member: Member; self: boolean; orgName: string }) {
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/members/{id}', { params: { path: { id: member.id } } })),
    onSuccess: () => {
      // Removing yourself ends this session too: there is nothing more to show here.
      if (self) return location.assign('/signin');
      qc.setQueryData<Member[]>(keys.members, (list) => list?.filter((m) => m.id !== member.id));
      notify(`${member.name} removed`);
      void qc.invalidateQueries({ queryKey: keys.members });
      // Cards list their assignees: this member is off them now.
      void qc.invalidateQueries({ queryKey: ['cards'] });
      void qc.invalidateQueries({ queryKey: ['card'] });
    },
    // A refusal (the last owner, a role changed meanwhile) is shown as every failed write is,
    // with the API's message; the list is read again.
    onError: () => qc.invalidateQueries({ queryKey: keys.members }),
  });
  return (
    <ConfirmDialog
      trigger={
        <Button className="button small danger" aria-label={`Remove ${member.name}`}>
          Remove
        </Button>
      }
      title={self ? `Remove yourself from ${orgName}?` : `Remove ${member.name} from ${orgName}?`}
      confirmLabel={self ? 'Remove me' : 'Remove member'}
      onConfirm={() => remove.mutate()}
    >
      {self ? (
        <p>
          You lose access at once: your API keys, sessions (this browser’s too) and sign-in links stop working. Your todos are deleted and you come off
          every card you were assigned to. Cards and snippets stay.
        </p>
      ) : (
        <p>
          {member.name} loses access at once: their API keys, sessions and sign-in links stop working. Their todos are deleted and they come off every
          card they were assigned to. Cards and snippets stay.
        </p>
      )}
      <p>This cannot be undone.</p>
    </ConfirmDialog>
  );
}

function SigninLink({ member }: { member: Member }) {
  const make = useMutation({
    meta: { inline: true },
    mutationFn: () => ok(api.POST('/members/{id}/signin-links', { params: { path: { id: member.id } } })),
  });
  return (
    <FormDialog
      title={`Sign-in link for ${member.name}`}
      onOpenChange={(open) => {
        if (open) make.reset();
      }}
      trigger={<Button className="button small">Sign-in link</Button>}
    >
      {(close) => (
        <div>
          <p className="muted">A one-time link, valid 15 minutes. Send it to {member.name} privately: whoever opens it signs in as them.</p>
          {make.data ? (
            <>
              <CopyField id={`signin-${member.id}`} label="Sign-in link" value={make.data.url} />
              <p className="muted small">Expires {formatDateTime(make.data.expires_at)}.</p>
            </>
          ) : (
            <button type="button" className="button primary" onClick={() => make.mutate()} disabled={make.isPending}>
              Make the link
            </button>
          )}
          <FieldErrors error={make.error} />
          <div className="dialog-actions">
            <button type="button" className="button" onClick={close}>
              Done
            </button>
          </div>
        </div>
      )}
    </FormDialog>
  );
}

function AddMember({ roleOptions }: { roleOptions: { id: string; label: string; refused?: string | undefined }[] }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const add = useMutation({
    meta: { inline: true },
    mutationFn: () => ok(api.POST('/members', { body: { name: name.trim(), role, ...(email.trim() ? { email: email.trim() } : {}) } })),
    onSuccess: () => {
      setName('');
      setEmail('');
      void qc.invalidateQueries({ queryKey: keys.members });
    },
  });
  return (
    <FormDialog title="Add a member" trigger={<Button className="button primary">Add member</Button>}>
      {(close) => {
        const submit = (e: FormEvent) => {
          e.preventDefault();
          add.mutate(undefined, { onSuccess: close });
        };
        return (
          <form onSubmit={submit}>
            <div className="field">
              <label htmlFor="member-name">Name</label>
              <input id="member-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
            </div>
            <div className="field">
              <label htmlFor="member-email">E-mail (optional)</label>
              <input id="member-email" type="email" className="field-input" value={email} onChange={(e) => setEmail(e.target.value)} />
            </div>
            <SelectField label="Role" value={role} options={roleOptions} onChange={(r) => setRole(r as Role)} />
            <FieldErrors error={add.error} />
            <div className="dialog-actions">
              <button type="button" className="button" onClick={close}>
                Cancel
              </button>
              <button type="submit" className="button primary" disabled={add.isPending}>
                Add member
              </button>
            </div>
          </form>
        );
      }}
    </FormDialog>
  );
}
