import Guacamole from './vendor/guacamole-common.js';
import {ApiError, api, credentials, element, fragmentParam, signIn} from './common.js';
import {hostKeyChangedText, statusText} from './status-text.js';
import {US_KEYBOARD} from './osk-layout.js';

const $ = id => document.getElementById(id);
const statusBar = $('status');
const view = $('session-view');
const area = $('display-area');
const displayBox = $('display');
const menu = $('menu');
const clipboard = $('clipboard');
const STATES = ['idle', 'connecting', 'waiting', 'connected', 'disconnecting', 'disconnected'];
const MODIFIERS = {control: [0xFFE3, 0xFFE4], alt: [0xFFE9, 0xFFEA], shift: [0xFFE1, 0xFFE2]};
const RECONNECT_SECONDS = 10;
const NODE_SHUTTING_DOWN = 0x7001; // the gateway's own msg code (org.farmgate.protocol.Notices)
const SESSION_KEY = 'farmgate.session'; // the session this tab shows: a reload comes back to it

let current = null; // {client, keyboard, session, again, leaving, countdown}
let isAdmin = false;

function status(text, error) {
  statusBar.textContent = text;
  statusBar.className = error ? 'error' : '';
}

/** The room the display has: what a new session is created with, and what it follows. */
function areaSize() {
  const width = area.clientWidth || window.innerWidth;
  const height = area.clientHeight || (window.innerHeight - 40);
  return {width: Math.max(640, Math.floor(width)), height: Math.max(480, Math.floor(height)),
    dpi: Math.round(96 * (window.devicePixelRatio || 1))};
}

function target(session) {
  return `${session.hostname}:${session.port}`;
}

/**
 * Opens the Guacamole tunnel to a session and shows its display; {@code again} makes a new one. {@code watch} is set
 * for someone who came by a share link: {ticket, readOnly, token, name}; a read-only watcher's page sends no input
 * (and the node would drop it anyway).
 */
async function connect(session, again, watch) {
  leave();
  view.hidden = false;
  if (!await bannerAccepted(session, watch) || !await hostKeyConfirmed(session, watch)) {
    view.hidden = true;
    return;
  }
  const {ticket} = watch || await api('POST', '/api/ws-ticket');
  document.body.dataset.watch = watch ? (watch.readOnly ? 'read-only' : 'collaborative') : '';
  $('sharing').hidden = Boolean(watch);
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const tunnel = new Guacamole.WebSocketTunnel(`${scheme}//${location.host}${session.ws_url}`);
  const client = new Guacamole.Client(tunnel);
  const state = {client, session, again, watch, leaving: false, failed: false, countdown: null, keyboard: null};
  current = state;
  if (!watch) {
    sessionStorage.setItem(SESSION_KEY, session.session_id);
  }
  const display = client.getDisplay();
  displayBox.replaceChildren(display.getElement());
  $('session-label').textContent = watch
    ? `${session.owner}'s ${session.session_type} session, shared with you ${watch.readOnly ? '(read-only)' : ''}`
    : `${session.session_type}://${target(session)} · ${session.node_id}`;
  hideOverlay();

  const fail = (code, message) => {
    if (state.leaving || state.failed) {
      return;
    }
    state.failed = true;
    if (!message || code === 520 && /^the connection to node /.test(message)) {
      // No word from the gateway (guacamole-common-js made this status from the WebSocket's close code: an abnormal
      // close, 1006, becomes "upstream not found", which says nothing of the remote machine), or the node that
      // relayed the session lost the node that holds it: what became of the session is asked of the gateway.
      dropped(state);
      return;
    }
    document.body.dataset.error = code;
    showOverlay(statusText(code, message, target(session)), `status ${code}: ${message}`, state);
    if (code === 512 && session.session_type === 'ssh' && !watch) {
      explainHostKey(session, code, message, state);
    }
  };
  tunnel.onerror = error => fail(error.code, error.message);
  client.onerror = error => fail(error.code, error.message);
  tunnel.onstatechange = tunnelState => {
    // CLOSED without an error: the node that served the page (or the network) went away.
    if (tunnelState === Guacamole.Tunnel.State.CLOSED && !state.leaving && !state.failed) {
      state.failed = true;
      dropped(state);
    }
  };
  client.onstatechange = clientState => {
    document.body.dataset.state = STATES[clientState];
    if (clientState === 3) {
      status(`connected to ${target(session)}`);
      hideOverlay();
      fit();
    } else if (clientState === 5 && !state.leaving && !state.failed) {
      state.failed = true;
      showOverlay('The session has ended.', '', state);
    }
  };
  display.onresize = () => fit();
  client.onclipboard = (stream, mimetype) => {
    if (!/^text\//.test(mimetype)) {
      return;
    }
    const reader = new Guacamole.StringReader(stream);
    let text = '';
    reader.ontext = chunk => { text += chunk; };
    reader.onend = () => {
      clipboard.value = text;
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).catch(() => {}); // the browser may refuse without a gesture
      }
    };
  };
  client.onfilesystem = (object, name) => {
    $('files').hidden = false;
    $('upload-target').textContent = name;
    $('upload').onchange = event => upload(client, object, event.target.files[0]);
  };
  client.onfile = (stream, mimetype, filename) => download(stream, mimetype, filename);
  client.onmsg = (code, args) => {
    if (code === NODE_SHUTTING_DOWN) {
      warnShutdown(Number(args[0]));
      return false;
    }
    return true;
  };

  if (!watch || !watch.readOnly) {
    const mouse = new Guacamole.Mouse(display.getElement());
    mouse.onEach(['mousedown', 'mouseup', 'mousemove', 'mousewheel'], event => {
      if (current === state && menu.hidden) {
        client.sendMouseState(event.state, true);
      }
    });
    state.keyboard = keyboardFor(state);
  }

  const size = areaSize();
  const params = new URLSearchParams({ticket, GUAC_WIDTH: String(size.width), GUAC_HEIGHT: String(size.height),
    GUAC_DPI: String(size.dpi), GUAC_TIMEZONE: Intl.DateTimeFormat().resolvedOptions().timeZone});
  for (const type of ['audio/L8', 'audio/L16']) params.append('GUAC_AUDIO', type);
  for (const type of ['image/png', 'image/jpeg', 'image/webp']) params.append('GUAC_IMAGE', type);
  document.body.dataset.error = '';
  status('connecting…');
  client.connect(params.toString());
  displayBox.focus();
}

/** Keys go to the remote side, but Ctrl+Alt+Shift opens and closes the menu, as in Apache Guacamole. */
function keyboardFor(state) {
  const keyboard = new Guacamole.Keyboard(document);
  const held = new Set();
  const all = group => MODIFIERS[group].some(keysym => held.has(keysym));
  keyboard.onkeydown = keysym => {
    held.add(keysym);
    if (all('control') && all('alt') && all('shift')) {
      for (const keysym of held) {
        state.client.sendKeyEvent(0, keysym);
      }
      held.clear();
      keyboard.reset();
      toggleMenu();
      return false;
    }
    if (!menu.hidden || document.activeElement === clipboard) {
      return true;
    }
    state.client.sendKeyEvent(1, keysym);
    return false;
  };
  keyboard.onkeyup = keysym => {
    held.delete(keysym);
    if (menu.hidden && document.activeElement !== clipboard) {
      state.client.sendKeyEvent(0, keysym);
    }
  };
  return keyboard;
}

/** The on-screen keyboard, made once and kept: its keys go to whichever session the page shows. */
let osk = null;

function toggleKeyboard() {
  const box = $('osk');
  if (!osk) {
    osk = new Guacamole.OnScreenKeyboard(US_KEYBOARD);
    osk.onkeydown = keysym => current && current.client.sendKeyEvent(1, keysym);
    osk.onkeyup = keysym => current && current.client.sendKeyEvent(0, keysym);
    box.appendChild(osk.getElement());
  }
  box.hidden = !box.hidden;
  if (!box.hidden) {
    osk.resize(Math.min(900, view.clientWidth - 16));
  }
  fit();
}

function sendKeys(keysyms) {
  if (!current) {
    return;
  }
  for (const keysym of keysyms) current.client.sendKeyEvent(1, keysym);
  for (const keysym of [...keysyms].reverse()) current.client.sendKeyEvent(0, keysym);
}

function toggleMenu() {
  menu.hidden = !menu.hidden;
  if (menu.hidden) {
    displayBox.focus();
  } else {
    clipboard.focus();
    showShares();
  }
}

/** The session's share links and who watches by them, while the menu is open. */
async function showShares() {
  const state = current;
  if (!state || state.watch || menu.hidden) {
    return;
  }
  const id = state.session.session_id;
  try {
    const [shares, session] = await Promise.all([api('GET', `/api/sessions/${id}/shares`),
      api('GET', `/api/sessions/${id}`)]);
    const watchers = session.watchers || [];
    $('shares').replaceChildren(...shares.map(share => element('li', {'data-share': share.share_id},
      `${share.mode} link, until ${new Date(share.expires_at).toLocaleTimeString()} `,
      element('button', {onclick: () => revokeShare(id, share.share_id)}, 'Stop sharing'))));
    $('watchers').textContent = watchers.length === 0 ? 'Nobody is watching.'
      : 'Watching now: ' + watchers.map(w => `${w.name}${w.read_only ? '' : ' (can type)'}`).join(', ');
  } catch (error) {
    $('watchers').textContent = error.message;
  }
  clearTimeout(state.sharesTimer);
  state.sharesTimer = setTimeout(showShares, 3000);
}

async function makeShare(mode) {
  const state = current;
  try {
    const share = await api('POST', `/api/sessions/${state.session.session_id}/shares`, {mode});
    const link = $('share-link');
    link.value = new URL(share.share_url, location.href).href;
    link.hidden = false;
    link.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(link.value).catch(() => {});
    }
  } catch (error) {
    $('watchers').textContent = error.message;
  }
  showShares();
}

async function revokeShare(sessionId, shareId) {
  try {
    await api('DELETE', `/api/sessions/${sessionId}/shares/${shareId}`);
    $('share-link').hidden = true;
  } catch (error) {
    $('watchers').textContent = error.message;
  }
  showShares();
}

/** Scales the remote display to the room it has (never up), when "fit to window" is on. */
function fit() {
  if (!current) {
    return;
  }
  const display = current.client.getDisplay();
  const width = display.getWidth();
  const height = display.getHeight();
  if (!width || !height) {
    return;
  }
  const scale = $('fit').checked ? Math.min(1, area.clientWidth / width, area.clientHeight / height) : 1;
  display.scale(scale);
  document.body.dataset.scale = scale.toFixed(3);
}

/** Asks the remote side to take the new size (SSH, VNC where it can, RDP by display-update), then fits. */
function followWindow() {
  if (current && !current.watch) {
    const size = areaSize();
    current.client.sendSize(size.width, size.height);
    fit();
  }
}

/** The node that holds the session is stopping: say so, with the time left, so the user can save their work. */
function warnShutdown(seconds) {
  const banner = $('notice');
  let left = seconds;
  const show = () => {
    banner.textContent = `The gateway node that runs this session is shutting down: the session ends in ${left} s `
      + 'unless you leave it first. Save your work.';
  };
  show();
  banner.hidden = false;
  const timer = setInterval(() => {
    left -= 1;
    if (left <= 0 || !current) {
      clearInterval(timer);
      banner.hidden = true;
      return;
    }
    show();
  }, 1000);
}

/**
 * The site's notice, accepted once per session in this tab before the session starts, with the word that the session
 * is recorded when it is; the acceptance of someone signed in or holding a token goes to the audit log (a watcher
 * has no identity there).
 */
function bannerAccepted(session, watch) {
  const key = 'farmgate.banner.' + session.session_id;
  if (!siteBanner && !session.recorded || sessionStorage.getItem(key)) {
    return Promise.resolve(true);
  }
  $('banner-text').textContent = siteBanner || '';
  $('banner-recorded').hidden = !session.recorded;
  $('banner').hidden = false;
  return new Promise(resolve => {
    $('banner-accept').onclick = () => {
      $('banner').hidden = true;
      sessionStorage.setItem(key, 'accepted');
      if (!watch) {
        api('POST', `/api/sessions/${session.session_id}/banner/accept`).catch(() => {});
      }
      resolve(true);
    };
    $('banner-leave').onclick = () => {
      $('banner').hidden = true;
      resolve(false);
    };
  });
}

/**
 * guacd says no more than "Aborted. See logs." when an SSH server's key is not the one it was given: the gateway is
 * asked to read the key the server shows now, and when it is another than the trusted one the page says so.
 */
async function explainHostKey(session, code, message, state) {
  const check = await api('GET', `/api/sessions/${session.session_id}/host-key?check=true`).catch(() => null);
  if (current === state && check && check.host_key && check.matches_trusted === false) {
    document.body.dataset.error = 'host-key';
    showOverlay(hostKeyChangedText(target(session), check.host_key.fingerprint, check.shown.fingerprint),
      `status ${code}: ${message}`, state);
    $('overlay-reconnect').hidden = true; // a new session would be refused the same way
  }
}

/**
 * An SSH session whose creation trusted its target's host key for the first time shows the key's fingerprint before
 * it starts, once per session in this tab; leaving ends the session. A watcher is not asked (the owner was).
 */
async function hostKeyConfirmed(session, watch) {
  const key = 'farmgate.hostkey.' + session.session_id;
  if (watch || session.session_type !== 'ssh' || sessionStorage.getItem(key)) {
    return true;
  }
  const trust = await api('GET', `/api/sessions/${session.session_id}/host-key`).catch(() => null);
  if (!trust || !trust.first_use) {
    return true;
  }
  $('hostkey-target').textContent = target(session);
  $('hostkey-fingerprint').textContent = trust.host_key.fingerprint;
  $('hostkey-algorithm').textContent = trust.host_key.algorithm;
  $('hostkey').hidden = false;
  return new Promise(resolve => {
    $('hostkey-accept').onclick = () => {
      $('hostkey').hidden = true;
      sessionStorage.setItem(key, 'confirmed');
      resolve(true);
    };
    $('hostkey-leave').onclick = () => {
      $('hostkey').hidden = true;
      api('DELETE', `/api/sessions/${session.session_id}`).catch(() => {});
      status('Session ended: the host key was not confirmed. Tell your administrator.', true);
      resolve(false);
    };
  });
}

/**
 * The WebSocket dropped without a word from the gateway: what happened is asked of the gateway (any node answers for
 * any session), so that the page says whose fault it is and what to do, never blaming the remote machine.
 */
async function dropped(state) {
  const session = state.session;
  let ending;
  try {
    const now = await api('GET', `/api/sessions/${session.session_id}`);
    ending = now.status === 'lost'
      ? {reason: 'node-lost', text: `The gateway node that ran this session (${now.node_id}) stopped, and the session `
        + 'was lost with it. The remote machine is not at fault. Start a new session.'}
      : now.status === 'active' || now.status === 'pending'
        ? {reason: 'dropped', text: 'The connection to the gateway was lost; the session is still running. '
          + 'Reconnecting…', retry: true}
        : {reason: 'ended', text: 'This session has ended.'};
  } catch (error) {
    ending = error instanceof ApiError
      ? {reason: 'gone', text: error.status === 404 ? 'This session no longer exists.' : error.message}
      : {reason: 'gateway-unreachable', text: `The gateway at ${location.host} is not answering: the gateway node `
        + 'serving this page may have stopped. Your session may still be running; this page tries again, or open '
        + 'the gateway through another of its addresses.', retry: true};
  }
  if (current !== state || state.leaving) {
    return;
  }
  document.body.dataset.error = ending.reason;
  showOverlay(ending.text, ending.retry ? 'the WebSocket closed' : 'the WebSocket closed: ' + ending.reason, state);
  if (!ending.retry) {
    // nothing to go back to: a new session where this page can make one (the form's, or the entry's), else none
    const again = $('overlay-reconnect');
    again.textContent = 'Start a new session';
    again.hidden = !state.again;
  }
}

function showOverlay(text, detail, state) {
  $('overlay-text').textContent = text;
  $('overlay-code').textContent = detail || '';
  $('overlay').hidden = false;
  status(text, true);
  const reconnect = $('overlay-reconnect');
  reconnect.hidden = false;
  if (state.countdown) {
    clearInterval(state.countdown);
    state.countdown = null;
  }
  if (detail === 'the WebSocket closed') {
    let left = RECONNECT_SECONDS;
    reconnect.textContent = `Reconnect (${left})`;
    state.countdown = setInterval(() => {
      left -= 1;
      reconnect.textContent = `Reconnect (${left})`;
      if (left <= 0) {
        clearInterval(state.countdown);
        state.countdown = null;
        reconnect.click();
      }
    }, 1000);
  } else {
    reconnect.textContent = 'Reconnect';
  }
}

function hideOverlay() {
  $('overlay').hidden = true;
  if (current && current.countdown) {
    clearInterval(current.countdown);
    current.countdown = null;
  }
}

/** Ends this page's use of the session: the tunnel closes, and the node ends the session. */
function leave() {
  if (!current) {
    return;
  }
  const state = current;
  current = null;
  state.leaving = true;
  if (state.countdown) {
    clearInterval(state.countdown);
  }
  if (state.keyboard) {
    state.keyboard.onkeydown = state.keyboard.onkeyup = null;
  }
  state.client.disconnect();
}

function backToLists() {
  sessionStorage.removeItem(SESSION_KEY);
  leave();
  hideOverlay();
  menu.hidden = true;
  view.hidden = true;
  document.body.dataset.state = 'idle';
  refresh();
}

function upload(client, filesystem, file) {
  if (!file) {
    return;
  }
  const stream = filesystem.createOutputStream(file.type || 'application/octet-stream', '/' + file.name);
  const writer = new Guacamole.BlobWriter(stream);
  writer.oncomplete = () => { $('transfers').textContent = `uploaded ${file.name}`; };
  writer.onerror = error => { $('transfers').textContent = `upload of ${file.name} failed: ${error.message}`; };
  writer.onprogress = (blob, offset) => { $('transfers').textContent = `${file.name}: ${offset} of ${file.size}`; };
  writer.sendBlob(file);
}

function download(stream, mimetype, filename) {
  const reader = new Guacamole.BlobReader(stream, mimetype);
  $('transfers').textContent = `receiving ${filename}…`;
  $('files').hidden = false;
  reader.onend = () => {
    const link = element('a', {href: URL.createObjectURL(reader.getBlob()), download: filename});
    link.click();
    $('transfers').textContent = `received ${filename}`;
  };
}

window.addEventListener('resize', followWindow);
document.addEventListener('fullscreenchange', followWindow);
$('fit').onchange = fit;
$('fullscreen').onclick = () => (document.fullscreenElement ? document.exitFullscreen()
  : view.requestFullscreen()).catch(error => status(error.message, true));
$('ctrl-alt-del').onclick = () => sendKeys([0xFFE3, 0xFFE9, 0xFFFF]);
$('keyboard-button').onclick = toggleKeyboard;
$('menu-button').onclick = toggleMenu;
$('menu-close').onclick = toggleMenu;
$('share-read-only').onclick = () => makeShare('read-only');
$('share-collaborative').onclick = () => makeShare('collaborative');
for (const button of menu.querySelectorAll('button[data-keys]')) {
  button.onclick = () => sendKeys(button.dataset.keys.split(',').map(Number));
}
$('disconnect').onclick = backToLists;
$('overlay-close').onclick = backToLists;
/**
 * Back to the same session while it lives (the node holds it a while for a client that went, and any node reaches
 * it), else a new one where the page can make it.
 */
async function resume(sessionId, again) {
  try {
    const session = await api('GET', `/api/sessions/${sessionId}`);
    if (session.status === 'active' || session.status === 'pending') {
      return session;
    }
  } catch (error) {
    if (!again) {
      throw error;
    }
  }
  if (!again) {
    throw new Error('The session has ended.');
  }
  return again();
}

$('overlay-reconnect').onclick = async () => {
  const state = current;
  if (!state) {
    return;
  }
  try {
    if (state.watch) {
      await watchShared(state.watch.token, state.watch.name);
      return;
    }
    await connect(await resume(state.session.session_id, state.again), state.again);
  } catch (error) {
    if (error instanceof ApiError) {
      showOverlay(error.message, `HTTP ${error.status}`, state);
    } else {
      dropped(state); // still no gateway: say so again, and try again later
    }
  }
};
clipboard.addEventListener('input', () => {
  if (current) {
    const writer = new Guacamole.StringWriter(current.client.createClipboardStream('text/plain'));
    writer.sendText(clipboard.value);
    writer.sendEnd();
  }
});

const form = $('create');
form.session_type.onchange = () => { form.dataset.type = form.session_type.value; };

/** The create body: what the form says, and the display the window has room for. */
function createBody() {
  const data = new FormData(form);
  const type = data.get('session_type');
  const size = areaSize();
  const body = {session_type: type, hostname: data.get('hostname'), width: size.width, height: size.height,
    dpi: size.dpi};
  if (data.get('port')) body.port = Number(data.get('port'));
  for (const field of ['username', 'password']) {
    if (data.get(field)) body[field] = data.get(field);
  }
  if (type === 'rdp') {
    if (data.get('domain')) body.domain = data.get('domain');
    if (data.get('security')) body.security = data.get('security');
    if (data.get('ignore_cert')) body.ignore_cert = true;
    if (data.get('enable_drive')) body.enable_drive = true;
    body.resize_method = 'display-update';
  }
  if (type === 'ssh') {
    if (data.get('private_key')) body.private_key = data.get('private_key');
    if (data.get('passphrase')) body.passphrase = data.get('passphrase');
    if (data.get('enable_sftp')) body.enable_sftp = true;
  }
  return body;
}

form.onsubmit = async event => {
  event.preventDefault();
  const body = createBody(); // the credentials stay in this page's memory only
  const create = () => api('POST', '/api/sessions', body);
  try {
    await connect(await create(), create);
  } catch (error) {
    view.hidden = true;
    status(error.message, true);
  }
};

/** A session's end in words: guacd's status as the session page says it ("guacd error 769: ..."). */
function endReason(s) {
  const guacd = /^guacd error (\d+): ?(.*)$/.exec(s.end_reason);
  return guacd ? statusText(Number(guacd[1]), guacd[2], target(s)) : s.end_reason;
}

/**
 * Running sessions' pictures, by session id: object URLs of the last JPEG each node made (an <img> could not send
 * the page's token, so they are fetched). The last one stays shown until its successor has loaded.
 */
const pictures = new Map();

async function showPicture(img, sessionId) {
  const response = await fetch(`/api/sessions/${sessionId}/thumbnail`, {headers: credentials()});
  if (!response.ok) return; // none yet, or the node is busy: the last one stays
  const url = URL.createObjectURL(await response.blob());
  const old = pictures.get(sessionId);
  pictures.set(sessionId, url);
  img.src = url;
  img.hidden = false;
  if (old) URL.revokeObjectURL(old);
}

function forgetPictures(shown) {
  for (const [id, url] of pictures) {
    if (!shown.has(id)) {
      URL.revokeObjectURL(url);
      pictures.delete(id);
    }
  }
}

function sessionRow(s) {
  const live = s.status === 'pending' || s.status === 'active';
  let picture = null;
  if (s.status === 'active') {
    picture = element('img', {class: 'thumb', alt: `the screen of ${target(s)}`, hidden: !pictures.has(s.session_id)});
    if (pictures.has(s.session_id)) picture.src = pictures.get(s.session_id);
    showPicture(picture, s.session_id).catch(() => {});
  }
  return element('tr', {'data-session': s.session_id},
    element('td', {}, s.session_id.slice(0, 8), picture), element('td', {}, s.session_type),
    element('td', {}, target(s)), element('td', {}, s.created_by || '',
      s.created_by_email ? element('div', {class: 'small'}, s.created_by_email) : null),
    element('td', {class: 'small'}, new Date(s.created_at).toLocaleString()),
    element('td', {}, s.status, s.end_reason ? element('div', {class: 'small'}, endReason(s)) : null),
    element('td', {}, s.node_id),
    element('td', {}, s.status === 'pending' ? element('button', {class: 'primary',
      onclick: () => connect(s, null).catch(error => status(error.message, true))}, 'Open') : null,
    live ? element('button', {onclick: async () => {
      await api('DELETE', `/api/sessions/${s.session_id}`).catch(error => status(error.message, true));
      refresh();
    }}, 'End') : null));
}

async function refreshSessions() {
  const all = isAdmin && $('everyone').checked;
  const list = $('sessions');
  let sessions;
  try {
    sessions = await api('GET', '/api/sessions' + (all ? '?all=true' : ''));
  } catch (error) {
    if (!(error instanceof ApiError)) {
      // The node serving this page is gone (or the network): the list is as it was, and says so.
      list.dataset.stale = list.dataset.stale || new Date().toLocaleTimeString();
      throw new Error(`The gateway at ${location.host} is not answering: the list below is as it was at `
        + `${list.dataset.stale}.`);
    }
    throw error;
  }
  delete list.dataset.stale;
  list.replaceChildren(...sessions.map(sessionRow));
  forgetPictures(new Set(sessions.filter(s => s.status === 'active').map(s => s.session_id)));
}

/** The address book as a tree: folders by path, indented by depth, filtered by the search box. */
let book = null;
let hasAddressBook = true;
/** The site's notice before each session (GW_SESSION_BANNER), or null. */
let siteBanner = null;

function renderBook() {
  const query = $('search').value.trim().toLowerCase();
  const rows = [];
  const folders = [...book.folders].sort((a, b) => a.path.localeCompare(b.path));
  for (const folder of folders) {
    const depth = folder.path.split('/').length - 1;
    const entries = folder.entries.filter(entry => !query || [entry.name, entry.display_name, entry.hostname,
      entry.description, folder.path].some(text => text && String(text).toLowerCase().includes(query)));
    if (query && entries.length === 0) {
      continue;
    }
    rows.push(element('tr', {class: 'folder'}, element('td', {colspan: 5, style: `padding-left:${0.7 + depth}rem`},
      folder.path, folder.description ? element('span', {class: 'small'}, ' · ' + folder.description) : null)));
    for (const entry of entries) {
      const open = () => withCredentials(() => api('POST', `/api/addressbook/folders/`
        + `${encodeURIComponent(folder.scope)}/${encodeURIComponent(folder.path)}/entries/`
        + `${encodeURIComponent(entry.name)}/connect`, areaSize()), entry.display_name || entry.name);
      rows.push(element('tr', {'data-entry': `${folder.path}/${entry.name}`},
        element('td', {style: `padding-left:${1.7 + depth}rem`}, entry.display_name || entry.name),
        element('td', {}, entry.session_type), element('td', {}, `${entry.hostname}:${entry.port || ''}`),
        element('td', {class: 'small'}, entry.description || ''),
        element('td', {}, element('button', {class: 'primary', onclick: async () => {
          try {
            await connect(await open(), open);
          } catch (error) {
            view.hidden = true;
            status(error.message, true);
          }
        }}, 'Connect'))));
    }
  }
  $('addressbook').replaceChildren(...rows);
}

/** How a variable's value is typed: a key in a text area, a name or a domain in clear, anything else hidden. */
function credentialInput(name) {
  if (/_key$/.test(name)) {
    return element('textarea', {name, rows: 2, autocomplete: 'off', placeholder: 'private key (PEM)'});
  }
  const clear = /_(user|username|domain)$/.test(name);
  return element('input', {name, type: clear ? 'text' : 'password', autocomplete: 'off', size: 28});
}

/** The values typed into {@code form}'s fields, blank ones left out (a blank keeps what is stored). */
function typedValues(form) {
  const values = {};
  for (const field of form.querySelectorAll('input[name], textarea[name]')) {
    if (field.value !== '') values[field.name] = field.value;
  }
  return values;
}

/**
 * Runs {@code open}; when the entry asks for credential variables this person has not stored (412, as rustguac
 * answers), asks for exactly those, keeps them, and opens again. Cancelling says the session was not opened.
 */
async function withCredentials(open, label) {
  try {
    return await open();
  } catch (error) {
    const missing = error instanceof ApiError && error.status === 412 ? error.body.missing_variables || [] : [];
    if (missing.length === 0) throw error;
    await askCredentials(missing, label);
    return open();
  }
}

function askCredentials(names, label) {
  const dialog = $('ask-credentials');
  const form = dialog.querySelector('form');
  $('ask-credentials-text').textContent = `"${label}" logs in with your own credentials. Enter `
    + (names.length === 1 ? 'this one' : `these ${names.length}`) + ' once:';
  $('ask-credentials-fields').replaceChildren(...names.map(name => element('label', {}, name + ' ',
    credentialInput(name))));
  form.querySelector('.problem').textContent = '';
  dialog.hidden = false;
  form.querySelector('input, textarea').focus();
  return new Promise((resolve, reject) => {
    $('ask-credentials-cancel').onclick = () => {
      dialog.hidden = true;
      reject(new Error(`Not connected to ${label}: it needs ${names.join(', ')}.`));
    };
    form.onsubmit = async event => {
      event.preventDefault();
      const values = typedValues(form);
      const left = names.filter(name => !values[name]);
      if (left.length) {
        form.querySelector('.problem').textContent = 'Still needed: ' + left.join(', ');
        return;
      }
      try {
        await api('PUT', '/api/me/credentials', {credentials: values});
        dialog.hidden = true;
        loadCredentials();
        resolve();
      } catch (error) {
        form.querySelector('.problem').textContent = error.message;
      }
    };
  });
}

/** My credentials: the variables this person keeps and those the entries they see ask for. */
async function loadCredentials() {
  const [mine, used] = await Promise.all([api('GET', '/api/me/credentials'),
    api('GET', '/api/credential-variables').catch(() => ({variables: {}}))]);
  const names = [...new Set([...Object.keys(used.variables), ...Object.keys(mine.credentials)])].sort();
  const rows = names.map(name => {
    const stored = mine.credentials[name];
    return element('tr', {'data-variable': name}, element('td', {}, element('code', {}, name)),
      element('td', {class: 'small'}, stored && stored.set ? stored.display : 'not set'),
      element('td', {}, credentialInput(name)),
      element('td', {}, stored && stored.set ? element('button', {type: 'button', onclick: async () => {
        await api('DELETE', `/api/me/credentials/${encodeURIComponent(name)}`)
          .catch(error => status(error.message, true));
        loadCredentials();
      }}, 'Forget') : null));
  });
  $('credentials').replaceChildren(...rows);
  $('credentials-section').hidden = names.length === 0;
}

$('my-credentials').onsubmit = async event => {
  event.preventDefault();
  const form = $('my-credentials');
  try {
    await api('PUT', '/api/me/credentials', {credentials: typedValues(form)});
    form.querySelector('.problem').textContent = '';
    await loadCredentials();
  } catch (error) {
    form.querySelector('.problem').textContent = error.message;
  }
};

/** The book's validator: asked every few seconds, the book comes again only when it changed (else a 304). */
let bookTag = null;

async function loadBook() {
  const headers = credentials();
  if (book && bookTag) headers['If-None-Match'] = bookTag;
  const response = await fetch('/api/addressbook', {headers});
  if (response.status === 304) return book;
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, json.error || response.statusText, json);
  bookTag = response.headers.get('ETag');
  return json;
}

async function refresh() {
  try {
    await refreshSessions();
  } catch (error) {
    status(error.message, true);
  }
  if (!hasAddressBook) {
    return; // asked only of a gateway that has one, so that the browser's console shows no 404 at every load
  }
  try {
    book = await loadBook();
    $('addressbook-section').hidden = book.folders.length === 0;
    renderBook();
  } catch (error) {
    $('addressbook-section').hidden = true;
  }
}

$('search').oninput = () => book && renderBook();
$('everyone').onchange = refresh;

/** Trades a share link for a ticket (the link is the only credential a watcher has) and watches. */
async function watchShared(token, name) {
  const body = {share: token};
  if (name) body.name = name;
  const granted = await api('POST', '/api/share-ticket', body, '');
  const session = {session_id: granted.session_id, ws_url: granted.ws_url, session_type: granted.session_type,
    owner: granted.owner};
  await connect(session, null, {ticket: granted.ticket, readOnly: granted.mode === 'read-only', token, name});
}

/** Someone with a share link signs in with nothing: they give a name, and watch. */
function startWatching(token) {
  history.replaceState(null, '', location.pathname + location.search); // the link leaves the address bar
  const form = document.querySelector('form.watch');
  form.hidden = false;
  $('disconnect').onclick = $('overlay-close').onclick = () => {
    leave();
    hideOverlay();
    view.hidden = true;
    form.hidden = false;
  };
  form.onsubmit = async event => {
    event.preventDefault();
    try {
      await watchShared(token, form.querySelector('input[name=name]').value.trim());
      form.hidden = true;
    } catch (error) {
      view.hidden = true;
      form.querySelector('.problem').textContent = error.status === 401
        ? 'This link was revoked or has expired. Ask the person who shared it for a new one.' : error.message;
    }
  };
}

async function start() {
  const offered = await fetch('/api/auth/status').then(response => response.json()).catch(() => ({}));
  hasAddressBook = offered.addressbook !== false;
  siteBanner = offered.banner || null;
  const shared = fragmentParam('share');
  if (shared) {
    startWatching(shared);
    return;
  }
  await signIn(document.querySelector('form.token'), token => api('GET', '/api/sessions', undefined, token));
  const me = await api('GET', '/api/me').catch(() => ({role: 'viewer'}));
  isAdmin = me.role === 'admin'; // a person without admin rights sees no admin links, rather than a 403
  $('admin-link').hidden = !isAdmin;
  $('everyone-toggle').hidden = !isAdmin;
  $('main').hidden = false;
  await refresh();
  if (hasAddressBook && me.email && ['operator', 'poweruser', 'admin'].includes(me.role)) {
    loadCredentials().catch(() => { $('credentials-section').hidden = true; }); // a file address book has none
  }
  setInterval(() => { if (view.hidden) refresh(); }, 5000);
  const asked = fragmentParam('connect');
  const shown = sessionStorage.getItem(SESSION_KEY); // a reload: back to the session this tab showed
  if (asked || shown) {
    try {
      const session = await api('GET', `/api/sessions/${asked || shown}`);
      if (asked || session.status === 'active' || session.status === 'pending') {
        await connect(session, null);
      } else {
        sessionStorage.removeItem(SESSION_KEY);
      }
    } catch (error) {
      sessionStorage.removeItem(SESSION_KEY);
      status(error.message, true);
    }
  }
}

start();
