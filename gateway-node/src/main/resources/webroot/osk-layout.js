// A US keyboard for Guacamole.OnScreenKeyboard: key names to keysyms (X11 keysym values), the rows they sit in,
// and the widths of the wide keys, in units of one letter key. Letters and symbols have a second cap under Shift.

const shifted = (plain, shift) => [{title: plain}, {title: shift, requires: ['shift']}];

const keys = {
  Esc: {title: 'Esc', keysym: 0xFF1B},
  Back: {title: '⌫', keysym: 0xFF08},
  Tab: {title: 'Tab', keysym: 0xFF09},
  Enter: {title: 'Enter', keysym: 0xFF0D},
  LShift: {title: 'Shift', modifier: 'shift', keysym: 0xFFE1},
  RShift: {title: 'Shift', modifier: 'shift', keysym: 0xFFE2},
  Ctrl: {title: 'Ctrl', modifier: 'control', keysym: 0xFFE3},
  Super: {title: 'Win', keysym: 0xFFEB},
  Alt: {title: 'Alt', modifier: 'alt', keysym: 0xFFE9},
  Space: {title: ' ', keysym: 0x20},
  Del: {title: 'Del', keysym: 0xFFFF},
  Left: {title: '←', keysym: 0xFF51},
  Up: {title: '↑', keysym: 0xFF52},
  Down: {title: '↓', keysym: 0xFF54},
  Right: {title: '→', keysym: 0xFF53},
};

const rows = [
  ['Esc', ...'1234567890-='.split(''), 'Back'],
  ['Tab', ...'qwertyuiop[]\\'.split('')],
  [...'asdfghjkl;\''.split(''), 'Enter'],
  ['LShift', ...'zxcvbnm,./'.split(''), 'RShift'],
  ['Ctrl', 'Super', 'Alt', 'Space', 'Del', 'Left', 'Up', 'Down', 'Right'],
];

const SHIFTED = {'1': '!', '2': '@', '3': '#', '4': '$', '5': '%', '6': '^', '7': '&', '8': '*', '9': '(',
  '0': ')', '-': '_', '=': '+', '[': '{', ']': '}', '\\': '|', ';': ':', '\'': '"', ',': '<', '.': '>', '/': '?'};

for (const row of rows) {
  for (const name of row) {
    if (!keys[name]) {
      keys[name] = shifted(name, SHIFTED[name] || name.toUpperCase());
    }
  }
}

export const US_KEYBOARD = {
  language: 'en_US',
  type: 'qwerty',
  width: 15,
  keys,
  layout: rows,
  keyWidths: {Back: 2, Tab: 1.5, '\\': 1.5, Enter: 2.5, LShift: 2.5, RShift: 2.5, Ctrl: 1.5, Super: 1.25,
    Alt: 1.25, Space: 5.5, Del: 1.5},
};
