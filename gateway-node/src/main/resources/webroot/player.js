// Plays a recording from the gateway's storage with guacamole-common-js's SessionRecording, fed by a
// StaticHTTPTunnel as rustguac's page does (1.5.0's SessionRecording given a Blob fails). The key log is read from the
// same stream as it loads: the 'key' instructions a recording holds when the site records keys.
import Guacamole from './vendor/guacamole-common.js';
import {credentials, element} from './common.js';

const NAMED_KEYS = {0xff08: '⌫', 0xff09: '⇥', 0xff0d: '⏎', 0xff1b: 'Esc', 0xffff: 'Del', 0xff51: '←', 0xff52: '↑',
  0xff53: '→', 0xff54: '↓', 0xffe1: 'Shift', 0xffe2: 'Shift', 0xffe3: 'Ctrl', 0xffe4: 'Ctrl', 0xffe9: 'Alt',
  0xffea: 'Alt', 0xffeb: 'Super'};

function keyName(keysym) {
  if (keysym >= 0x20 && keysym <= 0x7e || keysym >= 0xa0 && keysym <= 0xff) {
    return String.fromCharCode(keysym);
  }
  if (keysym >= 0x1000000) {
    return String.fromCodePoint(keysym - 0x1000000);
  }
  return NAMED_KEYS[keysym] || `<${keysym.toString(16)}>`;
}

function clock(ms) {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** A player in `root`: its display, a play/pause button, a seek bar, the time, and the key log. */
export function player(root) {
  let recording = null;
  const screen = element('div', {class: 'player-screen'});
  const toggle = element('button', {class: 'primary', disabled: true}, 'Play');
  const seek = element('input', {type: 'range', min: 0, max: 0, value: 0, disabled: true, 'aria-label': 'position'});
  const time = element('span', {class: 'small player-time'}, '0:00 / 0:00');
  const state = element('span', {class: 'small player-state', role: 'status'}, '');
  const keys = element('ol', {class: 'player-keys small'});
  const close = element('button', {}, 'Close');
  root.replaceChildren(element('div', {class: 'row'}, toggle, seek, time, state, close), screen,
    element('details', {}, element('summary', {class: 'small'}, 'Key log'), keys));

  function stop() {
    if (recording) {
      recording.pause();
      recording.disconnect();
      recording = null;
    }
    screen.replaceChildren();
    root.hidden = true;
  }
  close.onclick = stop;
  toggle.onclick = () => {
    if (recording) {
      if (recording.isPlaying()) {
        recording.pause();
      } else {
        recording.play();
      }
    }
  };
  seek.oninput = () => recording && recording.seek(Number(seek.value));

  function play(name) {
    stop();
    root.hidden = false;
    root.dataset.name = name;
    root.dataset.state = 'loading';
    state.textContent = 'loading…';
    keys.replaceChildren();
    const tunnel = new Guacamole.StaticHTTPTunnel('/api/recordings/' + encodeURIComponent(name), false,
      credentials());
    const playing = new Guacamole.SessionRecording(tunnel);
    recording = playing;
    let firstSync = null;
    const load = tunnel.oninstruction;
    tunnel.oninstruction = (opcode, args) => {
      if (opcode === 'sync' && firstSync === null) {
        firstSync = Number(args[0]);
      } else if (opcode === 'key' && args[1] === '1') {
        const at = args.length > 2 && firstSync !== null ? clock(Number(args[2]) - firstSync) : '';
        keys.append(element('li', {'data-keysym': args[0]}, element('span', {class: 'meta'}, at), ' ',
          keyName(Number(args[0]))));
      }
      load(opcode, args);
    };
    const display = playing.getDisplay();
    screen.append(display.getElement());
    display.onresize = () => {
      const scale = Math.min(1, (screen.clientWidth || 800) / Math.max(1, display.getWidth()));
      display.scale(scale);
    };
    playing.onprogress = duration => {
      seek.max = duration;
      time.textContent = `${clock(playing.getPosition())} / ${clock(duration)}`;
    };
    playing.onload = () => {
      root.dataset.state = 'loaded';
      const typed = keys.children.length;
      state.textContent = typed ? `${typed} key${typed === 1 ? '' : 's'} recorded` : '';
      toggle.disabled = false;
      seek.disabled = false;
      playing.play();
    };
    playing.onerror = message => {
      root.dataset.state = 'error';
      state.textContent = message;
    };
    playing.onplay = () => {
      toggle.textContent = 'Pause';
      root.dataset.state = 'playing';
    };
    playing.onpause = () => {
      toggle.textContent = 'Play';
      if (root.dataset.state === 'playing') {
        root.dataset.state = 'paused';
      }
    };
    playing.onseek = position => {
      seek.value = position;
      time.textContent = `${clock(position)} / ${clock(playing.getDuration())}`;
    };
    playing.connect();
  }
  root.hidden = true;
  return {play, stop};
}
