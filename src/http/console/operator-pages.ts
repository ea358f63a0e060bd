// The operators' pages: one's own account (password, sessions), and for operators who manage the
// others, the list of operators with their actions and each one's sessions.
import { MIN_PASSWORD_LENGTH } from '../../admin/passwords.ts';
import type { Operator, OperatorSession } from '../../admin/service.ts';
import { type Html, html } from './html.ts';
import { csrfField, layout, notices, type PageFrame, when } from './pages.ts';

const PASSWORD_RULES = `At least ${MIN_PASSWORD_LENGTH} characters, not whitespace only, not one character repeated, not a common password.`;

function sessionTable(
  frame: PageFrame,
  sessions: OperatorSession[],
  endPath: (s: OperatorSession) => string,
) {
  if (sessions.length === 0) return html`<p class="muted">No sessions.</p>`;
  return html`<div class="table-wrap"><table data-test="sessions"><thead><tr><th>Signed in</th><th>Last seen</th><th>Ends</th><th>Address</th><th>Browser</th><th></th></tr></thead><tbody>${sessions.map(
    (s) => html`<tr data-session="${s.idHash}"><td data-label="Signed in">${when(s.createdAt)}${
      s.idHash === frame.sessionId ? html` <span class="badge active">this browser</span>` : ''
    }</td><td data-label="Last seen">${when(s.lastSeenAt)}</td><td data-label="Ends">${when(s.expiresAt)}</td>
<td data-label="Address" class="mono">${s.address ?? '—'}</td><td data-label="Browser" class="wrap">${s.userAgent ?? '—'}</td>
<td data-label=""><form class="inline" method="post" action="${endPath(s)}">${csrfField(frame.csrf)}<button class="danger" type="submit">End</button></form></td></tr>`,
  )}</tbody></table></div>`;
}

/** What a page says after a form: its refusal or its confirmation. */
export type Outcome = { error?: string; done?: string | null };

export function accountPage(frame: PageFrame, sessions: OperatorSession[], r: Outcome): Html {
  const me = frame.operator;
  return layout(
    frame,
    'Account',
    html`<h1>Account</h1>${notices(r.error, r.done)}
<div class="card"><dl class="facts"><dt>Email</dt><dd>${me?.email ?? ''}</dd><dt>Id</dt><dd class="mono id">${me?.id ?? ''}</dd><dt>Manages operators</dt><dd>${me?.canManage ? 'yes' : 'no'}</dd></dl></div>
<h2>Change password</h2><div class="card"><form class="row" method="post" action="/console/account/password">${csrfField(frame.csrf)}
<input type="email" name="username" autocomplete="username" value="${me?.email ?? ''}" hidden>
<label>Current password <input type="password" name="current_password" autocomplete="current-password" required></label>
<label>New password <input type="password" name="new_password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required></label>
<button type="submit" data-test="change-password">Change password</button></form>
<p class="muted">${PASSWORD_RULES} Every session of this account ends and its operator API keys are revoked; this browser stays signed in.</p></div>
<h2>Sessions</h2>${sessionTable(frame, sessions, (s) => `/console/account/sessions/${s.idHash}/end`)}`,
  );
}

function operatorActions(frame: PageFrame, o: Operator): Html {
  const post = (action: string, label: string, cls: string, confirm?: string) =>
    html`<form class="inline" method="post" action="/console/operators/${o.id}/${action}"${confirm === undefined ? '' : html` data-confirm="${confirm}"`}>${csrfField(frame.csrf)}<button class="${cls}" type="submit" data-test="${action}">${label}</button></form> `;
  return html`${
    o.disabledAt === null
      ? post(
          'disable',
          'Disable',
          'secondary',
          `Disable ${o.email}? Their sessions end and their keys are revoked.`,
        )
      : post('enable', 'Enable', 'secondary')
  }${post('remove', 'Remove', 'danger', `Remove ${o.email} with their sessions and keys?`)}`;
}

export function operatorsPage(frame: PageFrame, operators: Operator[], r: Outcome): Html {
  const rows = operators.map(
    (
      o,
    ) => html`<tr data-operator="${o.id}"><td data-label="Operator"><a href="/console/operators/${o.id}">${o.email}</a><br><span class="muted mono id">${o.id}</span></td>
<td data-label="State"><span class="badge ${o.disabledAt === null ? 'active' : 'revoked'}">${o.disabledAt === null ? 'enabled' : 'disabled'}</span></td>
<td data-label="Manages">${o.canManage ? 'yes' : 'no'}</td><td data-label="Created">${when(o.createdAt)}</td><td data-label="Last sign-in">${when(o.lastSignInAt)}</td>
<td data-label="" class="actions">${operatorActions(frame, o)}</td></tr>`,
  );
  return layout(
    frame,
    'Operators',
    html`<h1>Operators</h1>${notices(r.error, r.done)}
<div class="card"><form class="row" method="post" action="/console/operators">${csrfField(frame.csrf)}
<label>Email <input type="email" name="email" maxlength="200" required autocomplete="off"></label>
<label>Password <input type="password" name="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required></label>
<label><input type="checkbox" name="can_manage" value="yes"> Manages operators</label>
<button type="submit" data-test="add-operator">Add operator</button></form><p class="muted">${PASSWORD_RULES}</p></div>
<div class="table-wrap"><table><thead><tr><th>Operator</th><th>State</th><th>Manages</th><th>Created</th><th>Last sign-in</th><th></th></tr></thead>
<tbody>${rows}</tbody></table></div>`,
  );
}

export function operatorPage(frame: PageFrame, o: Operator, sessions: OperatorSession[], r: Outcome): Html {
  return layout(
    frame,
    o.email,
    html`<h1>${o.email}</h1>${notices(r.error, r.done)}
<div class="card"><dl class="facts"><dt>Id</dt><dd class="mono id">${o.id}</dd><dt>State</dt><dd>${o.disabledAt === null ? 'enabled' : `disabled ${when(o.disabledAt)}`}</dd>
<dt>Manages operators</dt><dd>${o.canManage ? 'yes' : 'no'}</dd><dt>Last sign-in</dt><dd>${when(o.lastSignInAt)}</dd></dl>${operatorActions(frame, o)}</div>
<h2>Reset password</h2><div class="card"><form class="row" method="post" action="/console/operators/${o.id}/password">${csrfField(frame.csrf)}
<label>New password <input type="password" name="new_password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required></label>
<button type="submit" data-test="reset-password">Reset password</button></form><p class="muted">${PASSWORD_RULES} Their sessions end and their operator API keys are revoked.</p></div>
<h2>Sessions</h2>${sessionTable(frame, sessions, (s) => `/console/operators/${o.id}/sessions/${s.idHash}/end`)}
${sessions.length === 0 ? '' : html`<form method="post" action="/console/operators/${o.id}/sessions/end">${csrfField(frame.csrf)}<button class="danger" type="submit" data-test="end-all">End all sessions</button></form>`}`,
  );
}
