import Guacamole from './vendor/guacamole-common.js';
import {api, askToken, element, forgetToken, fragmentParam, takeToken} from './common.js';

const statusBar = document.getElementById('status');
const display = document.getElementById('display');
const view = document.getElementById('session-view');
const lists = document.getElementById('lists');
const clipboard = document.getElementById('clipboard');
const STATES = ['idle', 'connecting', 'waiting', 'connected', 'disconnecting', 'disconnected'];

let client = null;
let keyboard = null;
let again = null; // how to get a fresh session for "Reconnect"

function status(text, error) {
  statusBar.textContent = text;
  statusBar.className = error ? 'error' : '';
}

/** Opens the Guacamole tunnel to a pending session and shows its display. */
async function connect(session, reconnect) {
  disconnect();
  again = reconnect;
  const {ticket} = await api('POST', '/api/ws-ticket');
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const tunnel = new Guacamole.WebSocketTunnel(`${scheme}//${location.host}${session.ws_url}`);
  client = new Guacamole.Client(tunnel);
  display.replaceChildren(client.getDisplay().getElement());
  view.hidden = false;
  lists.hidden = true;
  document.getElementById('session-label').textContent =
    `${session.session_type}://${session.hostname} · session ${session.session_id} on ${session.node_id}`;

  client.onstatechange = state => {
    document.body.dataset.state = STATES[state];
    if (state === 3) {
      status(`connected to ${session.hostname}`);
    } else if (state === 5 && !document.body.dataset.error) {
      status('disconnected');
    }
  };
  client.onerror = error => {
    document.body.dataset.error = error.code;
    status(`Guacamole status ${error.code}: ${error.message}`, true);
  };
  client.onclipboard = (stream, mimetype) => {
    if (/^text\//.test(mimetype)) {
      const reader = new Guacamole.StringReader(stream);
      let text = '';
      reader.ontext = chunk => { text += chunk; };
      reader.onend = () => { clipboard.value = text; };
    }
  };

  const mouse = new Guacamole.Mouse(client.getDisplay().getElement());
  mouse.onEach(['mousedown', 'mouseup', 'mousemove'], event => client.sendMouseState(event.state, true));
  keyboard = new Guacamole.Keyboard(document);
  keyboard.onkeydown = keysym => { if (document.activeElement !== clipboard) client.sendKeyEvent(1, keysym); };
  keyboard.onkeyup = keysym => { if (document.activeElement !== clipboard) client.sendKeyEvent(0, keysym); };

  const params = new URLSearchParams({
    ticket,
    GUAC_WIDTH: String(window.innerWidth - 40),
    GUAC_HEIGHT: String(window.innerHeight - 160),
    GUAC_DPI: String(Math.round(96 * window.devicePixelRatio)),
    GUAC_TIMEZONE: Intl.DateTimeFormat().resolvedOptions().timeZone,
  });
  for (const type of ['audio/L8', 'audio/L16']) params.append('GUAC_AUDIO', type);
  for (const type of ['image/png', 'image/jpeg', 'image/webp']) params.append('GUAC_IMAGE', type);
  document.body.dataset.error = '';
  status('connecting…');
  client.connect(params.toString());
  display.focus();
}

function disconnect() {
  if (keyboard) {
    keyboard.onkeydown = keyboard.onkeyup = null;
    keyboard = null;
  }
  if (client) {
    client.disconnect();
    client = null;
  }
}

window.addEventListener('resize', () => {
  if (client) {
    client.sendSize(window.innerWidth - 40, window.innerHeight - 160);
  }
});

clipboard.addEventListener('change', () => {
  if (client) {
    const writer = new Guacamole.StringWriter(client.createClipboardStream('text/plain'));
    writer.sendText(clipboard.value);
    writer.sendEnd();
  }
});

document.getElementById('disconnect').onclick = () => {
  disconnect();
  view.hidden = true;
  lists.hidden = false;
  refresh();
};

document.getElementById('reconnect').onclick = async () => {
  if (!again) {
    status('this session was not opened here; create a new one', true);
    return;
  }
  try {
    await connect(await again(), again);
  } catch (error) {
    status(error.message, true);
  }
};

document.getElementById('create').onsubmit = async event => {
  event.preventDefault();
  const form = new FormData(event.target);
  const body = {session_type: form.get('session_type'), hostname: form.get('hostname')};
  if (form.get('port')) body.port = Number(form.get('port'));
  if (form.get('username')) body.username = form.get('username');
  if (form.get('password')) body.password = form.get('password');
  const create = () => api('POST', '/api/sessions', body); // the credentials stay in this page's memory only
  try {
    await connect(await create(), create);
  } catch (error) {
    status(error.message, true);
  }
};

async function refresh() {
  try {
    const sessions = await api('GET', '/api/sessions');
    document.getElementById('sessions').replaceChildren(...sessions.map(s => element('tr', {'data-session': s.session_id},
      element('td', {}, s.session_id.slice(0, 8)), element('td', {}, s.session_type),
      element('td', {}, `${s.hostname}:${s.port}`), element('td', {}, s.status, s.end_reason
        ? element('div', {class: 'small'}, s.end_reason) : null),
      element('td', {}, s.node_id),
      element('td', {}, s.status === 'pending' ? element('button', {class: 'primary', onclick: () => connect(s, null)},
        'Connect') : null, s.status === 'pending' || s.status === 'active' ? element('button', {onclick: async () => {
        await api('DELETE', `/api/sessions/${s.session_id}`); refresh(); }}, 'Delete') : null))));
  } catch (error) {
    if (error.status === 401) {
      forgetToken();
      location.reload();
      return;
    }
    status(error.message, true);
  }
  try {
    const book = await api('GET', '/api/addressbook');
    const rows = [];
    for (const folder of book.folders) {
      for (const entry of folder.entries) {
        const open = () => api('POST', `/api/addressbook/folders/${encodeURIComponent(folder.scope)}/`
          + `${encodeURIComponent(folder.path)}/entries/${encodeURIComponent(entry.name)}/connect`, {});
        rows.push(element('tr', {}, element('td', {}, folder.name), element('td', {}, entry.display_name || entry.name),
          element('td', {}, entry.session_type), element('td', {}, `${entry.hostname}:${entry.port || ''}`),
          element('td', {}, element('button', {class: 'primary', onclick: async () => {
            try { await connect(await open(), open); } catch (error) { status(error.message, true); } }},
          'Connect'))));
      }
    }
    document.getElementById('addressbook').replaceChildren(...rows);
    document.getElementById('addressbook-section').hidden = rows.length === 0;
  } catch (error) {
    document.getElementById('addressbook-section').hidden = true; // no address book here
  }
}

async function start() {
  if (!takeToken()) {
    await askToken(document.querySelector('form.token'));
  }
  document.getElementById('main').hidden = false;
  await refresh();
  const session = fragmentParam('connect');
  if (session) {
    try {
      await connect(await api('GET', `/api/sessions/${session}`), null);
    } catch (error) {
      status(error.message, true);
    }
  }
}

start();
