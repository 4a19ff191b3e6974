// What the pages share: the token (from #token=..., then kept in sessionStorage only, and handed to this origin's
// other tabs over a BroadcastChannel so that a new tab need not ask again), JSON API calls, and small DOM helpers.
const KEY = 'farmgate.token';
const channel = 'BroadcastChannel' in window ? new BroadcastChannel('farmgate.token') : null;

if (channel) {
  channel.onmessage = event => {
    if (event.data === 'ask' && sessionStorage.getItem(KEY)) {
      channel.postMessage({token: sessionStorage.getItem(KEY)});
    } else if (event.data === 'forget') {
      sessionStorage.removeItem(KEY);
    }
  };
}

/** The token: from the address bar (then removed from it), this tab, or another open tab of this origin. */
export async function takeToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.has('token')) {
    sessionStorage.setItem(KEY, fragment.get('token'));
    fragment.delete('token');
    const rest = fragment.toString();
    history.replaceState(null, '', location.pathname + location.search + (rest ? '#' + rest : ''));
  }
  if (!sessionStorage.getItem(KEY) && channel) {
    const answer = await new Promise(resolve => {
      const timer = setTimeout(() => resolve(null), 300);
      const previous = channel.onmessage;
      channel.onmessage = event => {
        if (event.data && event.data.token) {
          clearTimeout(timer);
          channel.onmessage = previous;
          resolve(event.data.token);
        } else {
          previous(event);
        }
      };
      channel.postMessage('ask');
    });
    if (answer) {
      sessionStorage.setItem(KEY, answer);
    }
  }
  return sessionStorage.getItem(KEY);
}

export function fragmentParam(name) {
  return new URLSearchParams(location.hash.slice(1)).get(name);
}

/** Forgets the token here and in the other tabs. */
export function forgetToken() {
  sessionStorage.removeItem(KEY);
  if (channel) {
    channel.postMessage('forget');
  }
}

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body || {};
  }
}

/** The signed-in person's CSRF token: what every change made with the login cookie repeats. */
let csrf = null;

/** The headers that prove who calls: the page's token, or {@code token}; else the login cookie's CSRF token. */
export function credentials(token) {
  const credential = token === '' ? null : token || sessionStorage.getItem(KEY);
  const headers = credential ? {'Authorization': 'Bearer ' + credential} : {};
  if (!credential && csrf) {
    headers['X-CSRF-Token'] = csrf;
  }
  return headers;
}

/**
 * A JSON API call with the page's token, or {@code token}; an empty {@code token} sends none. Without a token the
 * browser's login cookie (if any) goes, with the CSRF token.
 */
export async function api(method, path, body, token) {
  const headers = credentials(token);
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  if (response.status === 204) {
    return null;
  }
  const json = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new ApiError(response.status, json.error || response.statusText, json);
  }
  return json;
}

/**
 * Shows the token form until a token the node accepts is given (checked with {@code check}); says why when one is
 * refused instead of showing the form again silently. Resolves with the token.
 */
export function askToken(form, check, reason) {
  return new Promise(resolve => {
    const problem = form.querySelector('.problem');
    problem.textContent = reason || '';
    form.hidden = false;
    form.onsubmit = async event => {
      event.preventDefault();
      const value = form.querySelector('input').value.trim();
      if (!value) {
        return;
      }
      try {
        await check(value);
      } catch (error) {
        problem.textContent = error.status === 401 ? 'This token is not valid (unknown, revoked or expired).'
          : error.status === 403 ? error.message : 'The gateway did not answer: ' + error.message;
        return;
      }
      sessionStorage.setItem(KEY, value);
      form.hidden = true;
      resolve(value);
    };
  });
}

/**
 * The token this page works with: one known already (the address bar, this tab, another tab) that {@code check}
 * accepts, else one the user gives the form, with the reason the known one was refused.
 */
export async function signIn(form, check) {
  const token = await takeToken();
  let reason = null;
  if (token) {
    try {
      await check(token);
      return token;
    } catch (error) {
      reason = error.status === 401 ? 'The saved token is no longer valid (revoked or expired).' : error.message;
    }
  }
  const status = await fetch('/api/auth/status').then(response => response.json()).catch(() => ({}));
  if (status.oidc_enabled) {
    try {
      const me = await api('GET', '/api/me', undefined, '');
      csrf = me.csrf_token || null;
      showPerson(me);
      return null; // the login cookie does it
    } catch (error) {
      offerSignIn(form);
    }
  }
  // A new window, tab or browser profile knows no token: the page keeps it in this tab's storage only (and gives it
  // to this origin's other open tabs), never in a cookie, so that no other site's request can carry it.
  return askToken(form, check, reason || (status.oidc_enabled ? null : 'This window has no token yet: a token '
    + 'stays only in the tabs it was given to (never in a cookie), so a new window asks for it again.'));
}

/** The provider's sign-in, coming back to this very page. */
function offerSignIn(form) {
  const link = form.querySelector('.sign-in');
  if (link) {
    link.href = '/auth/login?return=' + encodeURIComponent(location.pathname + location.hash);
    link.hidden = false;
    form.querySelector('.or-token').hidden = false;
  }
}

/** Who is signed in, with their role, and a way out: signing out here signs out at the provider too. */
function showPerson(me) {
  const who = document.getElementById('who');
  if (!who) {
    return;
  }
  who.textContent = `${me.name} · ${me.role}`;
  who.hidden = false;
  const out = document.getElementById('sign-out');
  out.hidden = false;
  out.onclick = async () => {
    const response = await fetch('/auth/logout', {method: 'POST', headers: {'X-CSRF-Token': csrf || ''}});
    const next = await response.json().catch(() => ({logout_url: '/'}));
    sessionStorage.clear();
    location.assign(next.logout_url || '/');
  };
}

export function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many || one + 's'}`;
}

export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith('on')) {
      node[name] = value;
    } else if (value !== null && value !== undefined && value !== false) {
      node.setAttribute(name, value === true ? '' : value);
    }
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}
