// Guacamole's numeric statuses in words a user can act on; the number stays beside them, small, for support.
// The codes are Guacamole's (guacamole-common-js Guacamole.Status.Code, guacd's protocol documentation).

const TEXT = {
  256: 'The remote machine does not support this.',
  512: 'The gateway failed. Try again; if it goes on, tell your administrator.',
  513: 'The gateway is busy. Try again in a moment.',
  514: 'The remote machine did not answer in time.',
  515: 'The remote machine cannot be reached at {target}.',
  516: 'This session no longer exists.',
  517: 'This session is in use elsewhere.',
  518: 'This session has ended.',
  519: 'The remote machine cannot be reached at {target}.',
  520: 'The gateway node that holds this session cannot be reached.',
  521: 'Someone else took over this session.',
  522: 'The session ended because it was idle too long.',
  523: 'The session was closed.',
  768: 'The connection was refused: something in the request is not valid.',
  769: 'The username or password is wrong.',
  771: 'You are not allowed to open this session.',
  776: 'The connection from your browser timed out.',
  781: 'Your browser sent more than the gateway accepts.',
  783: 'Your browser sent data of a kind the gateway does not accept.',
  797: 'You have too many sessions open.',
};

/** The words for a Guacamole status, given the session's target and guacd's own message. */
export function statusText(code, message, target) {
  const detail = message || '';
  if (code === 769 && /ticket/i.test(detail)) {
    return 'Your permission to open this connection expired. Open it again.';
  }
  if ((code === 519 || code === 515) && /certificate|tls|ssl/i.test(detail)) {
    return 'The remote machine\'s certificate is not trusted. Connect with "ignore certificate" if you trust it.';
  }
  if (code === 519 && /security type/i.test(detail)) {
    return 'The remote machine refused this kind of connection. Try another security mode, or ask whether it takes '
      + 'remote desktop connections.';
  }
  if (code === 771 && /share link/i.test(detail)) {
    return 'The person who shared this session stopped sharing it.';
  }
  if (code === 517 && /not started/i.test(detail)) {
    return 'The shared session has not started yet. Try again once its owner is connected.';
  }
  if (code === 797 && /watchers/i.test(detail)) {
    return 'As many people as allowed are watching this session already.';
  }
  if (code === 776 && /read nothing/i.test(detail)) {
    return 'The session was ended because this browser stopped reading from it.';
  }
  const text = TEXT[code] || 'The connection failed.';
  return text.replace('{target}', target || 'its address');
}

/** A session refused because its SSH server shows another key than the one trusted for it (the gateway checked). */
export function hostKeyChangedText(target, trusted, shown) {
  return `The SSH host key of ${target} is not the one trusted for it: the machine was reinstalled, or something is `
    + `between the gateway and it. Trusted: ${trusted}; shown now: ${shown}. Do not go on; tell your administrator, `
    + 'who can check the machine and pin its new key.';
}
