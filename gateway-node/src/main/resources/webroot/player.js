// Plays a recording from the gateway's storage with guacamole-common-js's SessionRecording, fed by a
// StaticHTTPTunnel as rustguac's page does (1.5.0's SessionRecording given a Blob fails). The key log is read from the
// same stream as it loads: the 'key' instructions a recording holds when the site records keys. SessionRecording
// 1.5.0 plays in real time only; faster, the page moves it on itself, a step every tick by the time passed times
// the speed (a forward seek replays every frame between, so nothing drawn is skipped).
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

const SPEEDS = [1, 2, 4, 8, 16];
const TICK_MS = 100;

/** A player in `root`: its display, a play/pause button, a seek bar, the speed, the time, and the key log. */
export function player(root) {
  let recording = null;
  let fast = null; // playing faster than real time: the page's own stepping, {timer, last}
  const screen = element('div', {class: 'player-screen'});
  const toggle = element('button', {class: 'primary', disabled: true}, 'Play');
  const speed = element('select', {'aria-label': 'speed', class: 'player-speed'},
    ...SPEEDS.map(times => element('option', {value: times}, `${times}×`)));
  const seek = element('input', {type: 'range', min: 0, max: 0, value: 0, disabled: true, 'aria-label': 'position'});
  const time = element('span', {class: 'small player-time'}, '0:00 / 0:00');
  const state = element('span', {class: 'small player-state', role: 'status'}, '');
  const keys = element('ol', {class: 'player-keys small'});
  const close = element('button', {}, 'Close');
  root.replaceChildren(element('div', {class: 'row'}, toggle, seek, speed, time, state, close), screen,
    element('details', {}, element('summary', {class: 'small'}, 'Key log'), keys));

  function playing() {
    return fast !== null || (recording !== null && recording.isPlaying());
  }

  function pause() {
    if (fast) {
      clearTimeout(fast.timer);
      fast = null;
      toggle.textContent = 'Play';
      root.dataset.state = 'paused';
    }
    if (recording) {
      recording.pause();
    }
  }

  /** Plays at the chosen speed: SessionRecording's own playback at 1×, the page's steps faster. */
  function resume() {
    const times = Number(speed.value);
    if (times === 1) {
      recording.play();
      return;
    }
    fast = {timer: null, last: performance.now()};
    toggle.textContent = 'Pause';
    root.dataset.state = 'playing';
    const step = () => {
      if (!fast) {
        return;
      }
      const now = performance.now();
      const to = Math.min(recording.getDuration(), recording.getPosition() + (now - fast.last) * times);
      fast.last = now;
      recording.seek(to, () => {
        if (!fast) {
          return;
        }
        if (to >= recording.getDuration()) {
          pause();
        } else {
          fast.timer = setTimeout(step, TICK_MS);
        }
      });
    };
    fast.timer = setTimeout(step, TICK_MS);
  }

  function stop() {
    pause();
    if (recording) {
      recording.disconnect();
      recording = null;
    }
    screen.replaceChildren();
    root.hidden = true;
  }
  close.onclick = stop;
  toggle.onclick = () => {
    if (recording) {
      if (playing()) {
        pause();
      } else {
        resume();
      }
    }
  };
  speed.onchange = () => {
    root.dataset.speed = speed.value;
    if (recording && playing()) {
      pause();
      resume();
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
    const opened = new Guacamole.SessionRecording(tunnel);
    recording = opened;
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
    const display = opened.getDisplay();
    screen.append(display.getElement());
    display.onresize = () => {
      const scale = Math.min(1, (screen.clientWidth || 800) / Math.max(1, display.getWidth()));
      display.scale(scale);
    };
    opened.onprogress = duration => {
      seek.max = duration;
      root.dataset.duration = duration;
      time.textContent = `${clock(opened.getPosition())} / ${clock(duration)}`;
    };
    opened.onload = () => {
      root.dataset.state = 'loaded';
      const typed = keys.children.length;
      state.textContent = typed ? `${typed} key${typed === 1 ? '' : 's'} recorded` : '';
      toggle.disabled = false;
      seek.disabled = false;
      resume();
    };
    opened.onerror = message => {
      root.dataset.state = 'error';
      state.textContent = message;
    };
    opened.onplay = () => {
      toggle.textContent = 'Pause';
      root.dataset.state = 'playing';
    };
    opened.onpause = () => {
      toggle.textContent = 'Play';
      if (root.dataset.state === 'playing') {
        root.dataset.state = 'paused';
      }
    };
    opened.onseek = position => {
      seek.value = position;
      root.dataset.position = position;
      time.textContent = `${clock(position)} / ${clock(opened.getDuration())}`;
    };
    opened.connect();
  }
  root.hidden = true;
  return {play, stop};
}
