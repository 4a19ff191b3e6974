// History, the audit log, people and group mappings: what an auditor reads and an admin changes. Everyone sees their
// own history; the other tabs show to admins and auditors, and only admins get the buttons that change something.
import {api, credentials, element, plural, signIn} from './common.js';
import {player} from './player.js';

const $ = id => document.getElementById(id);
const ROLES = ['viewer', 'auditor', 'operator', 'poweruser', 'admin'];
const PAGE = 100;
let me = {role: 'viewer'};

function status(text, error) {
  $('status').textContent = text || '';
  $('status').className = error ? 'error' : '';
}

function when(value) {
  return value ? new Date(value).toLocaleString() : '';
}

function duration(seconds) {
  if (seconds === null || seconds === undefined) {
    return '';
  }
  const h = Math.floor(seconds / 3600);
  const m = Math.floor(seconds % 3600 / 60);
  return h ? `${h} h ${m} min` : m ? `${m} min ${seconds % 60} s` : `${seconds} s`;
}

/** A filter form as query parameters; a 'to' day includes that day. */
function query(form, offset) {
  const params = new URLSearchParams();
  for (const [name, value] of new FormData(form)) {
    if (value === '') {
      continue;
    }
    if (name === 'to') {
      const next = new Date(value + 'T00:00:00Z');
      next.setUTCDate(next.getUTCDate() + 1);
      params.set(name, next.toISOString().slice(0, 10));
    } else {
      params.set(name, value);
    }
  }
  params.set('limit', PAGE);
  params.set('offset', offset);
  return params;
}

/** A table filled page by page: the first page replaces what was shown, 'More' appends the next. */
function pagedTable(form, path, listOf, row, rows, count, more) {
  let offset = 0;
  async function load(append) {
    offset = append ? offset + PAGE : 0;
    const page = await read(`${path}?${query(form, offset)}`);
    if (!page) {
      return;
    }
    status('');
    const shown = listOf(page).map(row);
    if (append) {
      rows.append(...shown);
    } else {
      rows.replaceChildren(...shown);
    }
    count.textContent = plural(page.total, 'row') + ' match';
    more.hidden = offset + PAGE >= page.total;
    rows.dataset.loaded = rows.children.length;
  }
  form.onsubmit = event => {
    event.preventDefault();
    load(false);
  };
  more.onclick = () => load(true);
  return load;
}

function sessionRow(s) {
  return element('tr', {'data-session': s.session_id},
    element('td', {}, when(s.started_at)),
    element('td', {}, s.created_by, s.created_by_email && s.created_by_email !== s.created_by
      ? element('div', {class: 'small'}, s.created_by_email) : null),
    element('td', {}, s.session_type),
    element('td', {}, s.username ? `${s.username}@${s.hostname}` : s.hostname, s.port ? `:${s.port}` : ''),
    element('td', {}, s.entry_display_name || s.address_book_entry || ''),
    element('td', {}, duration(s.duration_secs)),
    element('td', {}, s.end_reason || s.status, s.ended_by ? ` by ${s.ended_by}` : '',
      s.end_detail ? element('div', {class: 'small'}, s.end_detail) : null),
    element('td', {}, s.node_id),
    element('td', {}, s.client_address || ''));
}

function auditRow(e) {
  return element('tr', {'data-seq': e.seq, 'data-action': e.action},
    element('td', {}, e.seq), element('td', {}, when(e.at)),
    element('td', {}, e.actor_name || e.actor_id || '', e.actor_role ? element('div', {class: 'small'}, e.actor_role)
      : null),
    element('td', {}, e.action), element('td', {}, e.target || ''),
    element('td', {}, element('span', {class: 'badge ' + e.outcome}, e.outcome)),
    element('td', {class: 'small'}, e.detail || ''), element('td', {}, e.client_address || ''),
    element('td', {}, e.node_id));
}

/** The CSV of what the history form asks for, downloaded with this page's credentials. */
async function downloadCsv() {
  const params = query(document.querySelector('form[data-for="sessions"]'), 0);
  params.delete('limit');
  params.delete('offset');
  const response = await fetch('/api/reports/sessions/csv?' + params, {headers: credentials()});
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    status(body.error || response.statusText, true);
    return;
  }
  const link = element('a', {href: URL.createObjectURL(await response.blob()), download: 'session-history.csv'});
  document.body.append(link);
  link.click();
  link.remove();
}

async function verifyChain() {
  const chain = $('chain');
  try {
    const check = await api('GET', '/api/audit/verify');
    chain.dataset.intact = check.intact;
    chain.className = check.intact ? '' : 'error-text';
    chain.textContent = check.intact ? `The chain is intact: ${plural(check.rows, 'row')}, up to #${check.head_seq}.`
      : `The chain is broken at row #${check.first_broken_seq}: ${check.problem}`;
  } catch (error) {
    chain.textContent = error.message;
  }
}

function roleSelect(current, withGroups, onchange) {
  const options = (withGroups ? [''] : []).concat(ROLES).map(role => element('option',
    {value: role, selected: role === (current || '')}, role || 'from their groups'));
  return element('select', {onchange: event => onchange(event.target.value || null)}, options);
}

async function change(method, path, body, reload) {
  try {
    await api(method, path, body);
    status('');
  } catch (error) {
    status(error.message, true);
  }
  await reload();
}

/** What a tab shows, or null when it cannot be read (and the page says why). */
async function read(path) {
  try {
    return await api('GET', path);
  } catch (error) {
    status(error.message, true);
    return null;
  }
}

async function loadPeople() {
  const people = await read('/api/users');
  if (!people) {
    return;
  }
  const admin = me.role === 'admin';
  const path = person => '/api/users/' + encodeURIComponent(person.id);
  $('people-rows').replaceChildren(...people.map(person => element('tr',
    {'data-person': person.id, 'data-disabled': String(person.disabled), 'data-role': person.role},
    element('td', {}, person.name, element('div', {class: 'small'}, person.id)),
    element('td', {}, person.email || ''),
    element('td', {}, admin && person.id !== me.id
      ? roleSelect(person.role_override, true, role => change('PUT', path(person) + '/role', {role}, loadPeople))
      : person.role, person.role_override ? element('div', {class: 'small'}, 'given by an admin') : null),
    element('td', {class: 'small'}, person.oidc_groups),
    element('td', {}, when(person.created_at)), element('td', {}, when(person.last_login_at)),
    element('td', {}, admin && person.id !== me.id ? [
      element('button', {class: 'toggle', onclick: () => change('POST', path(person)
        + (person.disabled ? '/enable' : '/disable'), undefined, loadPeople)}, person.disabled ? 'Enable' : 'Disable'),
      element('button', {onclick: () => confirm(`Forget ${person.name}? They can sign in again if their groups `
        + 'let them; to keep them out, disable them.') && change('DELETE', path(person), undefined, loadPeople)},
      'Delete')] : person.disabled ? 'disabled' : ''))));
}

function size(bytes) {
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * The recordings the filters ask for (the newest 500), each with Play (a running session's up to now), and Delete
 * for an admin.
 */
async function loadRecordings(playback) {
  const params = query(document.querySelector('form[data-for="recordings"]'), 0);
  params.set('limit', 500);
  params.delete('offset');
  const recordings = await read('/api/recordings?' + params);
  if (!recordings) {
    return;
  }
  $('recordings-count').textContent = plural(recordings.length, 'recording') + ' shown';
  const admin = me.role === 'admin';
  $('recording-rows').replaceChildren(...recordings.map(r => element('tr',
    {'data-recording': r.session_id, 'data-state': r.state},
    element('td', {}, when(r.created_at)), element('td', {}, r.user || ''), element('td', {}, r.session_type || ''),
    element('td', {}, r.hostname || ''), element('td', {}, r.entry_display_name || r.address_book_entry || ''),
    element('td', {}, r.ended_at ? duration(Math.round((new Date(r.ended_at) - new Date(r.created_at)) / 1000)) : ''),
    element('td', {}, size(r.size_bytes)),
    element('td', {}, r.state, r.keys_included ? element('div', {class: 'small'}, 'keys recorded') : null,
      r.state_detail ? element('div', {class: 'small'}, r.state_detail) : null,
      r.joins && r.joins.length ? element('div', {class: 'small'}, 'joined by ' + r.joins
        .map(join => join.who + (join.share ? ' (share link)' : '')).join(', ')) : null),
    element('td', {}, r.node_id),
    element('td', {}, element('button', {class: 'play', onclick: () => playback.play(r.name)},
      r.state === 'recording' ? 'Play so far' : 'Play'),
    admin && r.state !== 'recording' ? element('button', {onclick: () => confirm(`Delete the recording of `
      + `${r.user}'s session? It cannot be brought back.`) && change('DELETE', '/api/recordings/'
      + encodeURIComponent(r.name), undefined, () => loadRecordings(playback))}, 'Delete') : ''))));
}

async function loadMappings() {
  const mappings = await read('/api/admin/group-mappings');
  if (!mappings) {
    return;
  }
  const admin = me.role === 'admin';
  $('mapping-rows').replaceChildren(...mappings.map(mapping => element('tr', {'data-group': mapping.oidc_group},
    element('td', {}, mapping.oidc_group),
    element('td', {}, admin ? roleSelect(mapping.role, false, role => change('PUT',
      `/api/admin/group-mappings/${mapping.id}`, {role}, loadMappings)) : mapping.role),
    element('td', {}, when(mapping.created_at)), element('td', {}, mapping.created_by || ''),
    element('td', {}, admin ? element('button', {onclick: () => change('DELETE',
      `/api/admin/group-mappings/${mapping.id}`, undefined, loadMappings)}, 'Delete') : ''))));
}

function showTab(name) {
  const allowed = me.role === 'admin' || me.role === 'auditor' ? name : 'history';
  for (const section of document.querySelectorAll('main > section')) {
    section.hidden = section.dataset.tab !== allowed;
  }
  for (const link of document.querySelectorAll('nav.tabs a')) {
    link.classList.toggle('current', link.dataset.tab === allowed);
  }
  document.body.dataset.tab = allowed;
  return allowed;
}

async function start() {
  await signIn(document.querySelector('form.token'), token => api('GET', '/api/me', undefined, token));
  me = await api('GET', '/api/me').catch(() => me);
  const reader = me.role === 'admin' || me.role === 'auditor';
  for (const link of document.querySelectorAll('nav.tabs a[data-needs]')) {
    link.hidden = !reader;
  }
  document.querySelector('nav.tabs').hidden = false;
  for (const form of document.querySelectorAll('.admin-only')) {
    form.hidden = me.role !== 'admin';
  }
  const roles = document.querySelector('#add-mapping select');
  roles.replaceChildren(...ROLES.map(role => element('option', {value: role}, role)));
  $('add-mapping').onsubmit = event => {
    event.preventDefault();
    const form = new FormData(event.target);
    change('POST', '/api/admin/group-mappings', {group: form.get('group'), role: form.get('role')}, loadMappings)
      .then(() => event.target.reset());
  };
  const history = pagedTable(document.querySelector('form[data-for="sessions"]'), '/api/reports/sessions',
    page => page.sessions, sessionRow, $('history-rows'), $('history-count'), $('history-more'));
  const audit = pagedTable(document.querySelector('form[data-for="audit"]'), '/api/audit', page => page.events,
    auditRow, $('audit-rows'), $('audit-count'), $('audit-more'));
  $('csv').onclick = downloadCsv;
  $('verify').onclick = verifyChain;
  const playback = player($('player'));
  document.querySelector('form[data-for="recordings"]').onsubmit = event => {
    event.preventDefault();
    loadRecordings(playback);
  };
  const loaders = {history: () => history(false), audit: () => audit(false), people: loadPeople,
    mappings: loadMappings, recordings: () => loadRecordings(playback)};
  // The tab is the fragment's first known name (#audit, or #audit&token=... before the token is taken from it).
  const open = () => loaders[showTab([...new URLSearchParams(location.hash.slice(1)).keys()]
    .find(name => name in loaders) || 'history')]();
  window.onhashchange = open;
  $('main').hidden = false;
  await open();
}

start();
