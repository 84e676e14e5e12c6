// Lantern's service worker (issue 29), served at /sw.js (accounts/pwa.py) so it may keep pages anywhere in the app.
//
// - Sheets, the list of characters and a table's stash on its own page (/campaigns/<id>/stash/, issue 41): from
//   the network when there is one, each answer kept in that person's own cache ("lantern-user-<id>", the id from
//   the X-Lantern-User header), the last KEEP_PAGES of them; with no network, the kept copy, marked so the page
//   shows "offline — as of HH:MM" (static/js/offline.js).
// - Static files (their names change with their content in production): kept once, served from the cache first.
// - Nothing else is touched: the event stream, writes and fragments always go to the network.
// Logout deletes all of it (Clear-Site-Data on the logout answer; offline.js too, on the next page).
// - Offline, a kept page comes only from the cache of whoever is signed in now: the "lantern_user" cookie, which
//   expires with the session and goes with the first answer after it ended otherwise (accounts/pwa.py). A session
//   that ended without the Log out button (expiry, a password changed elsewhere) leaves nothing readable: its kept
//   pages are deleted on the next load.
const STATIC_CACHE = "lantern-static-v1";
const USER_CACHE = "lantern-user-";
const USER_COOKIE = "lantern_user";
const SIGNED_IN = "lantern-signed-in"; // where the worker notes who it last saw signed in (no cookieStore)
const KEEP_PAGES = 12;
const KEPT_PAGE = /^\/(characters\/(\d+\/)?|campaigns\/\d+\/stash\/)$/; // offline.js keeps the same list

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && KEPT_PAGE.test(url.pathname)) {
    event.respondWith(page(request));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(asset(request));
  }
});

// A page the open sheet asks to keep (the first visit, before this worker controlled it), and its static files.
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "keep") {
    event.waitUntil(Promise.all([
      ...(data.pages || []).map((href) => fetch(href, { credentials: "same-origin" }).then(keep).catch(() => null)),
      caches.open(STATIC_CACHE).then((cache) => Promise.all((data.assets || []).map((href) =>
        cache.match(href).then((hit) => hit || cache.add(href)).catch(() => null)))),
    ]).then(() => event.source && event.source.postMessage({ type: "kept" })));
  }
});

async function page(request) {
  try {
    const response = await fetch(request);
    await noteSignedIn(response);
    await keep(response.clone());
    return response;
  } catch (offline) {
    const kept = await keptPage(request.url);
    if (kept) return marked(kept);
    return new Response(
      '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
      "<title>Offline · Lantern</title><h1>You are offline</h1>" +
      "<p>This page was not kept on this device. Sheets you opened recently are: go back and open one.</p>",
      { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } },
    );
  }
}

// Kept: a full answer (not a redirect to the login page) for a signed-in person, in their cache, newest last.
async function keep(response) {
  const user = response.headers.get("X-Lantern-User");
  if (!response.ok || response.redirected || response.type !== "basic" || !user) return;
  const url = new URL(response.url);
  const headers = new Headers(response.headers);
  headers.set("X-Lantern-Kept-At", new Date().toISOString());
  headers.delete("Content-Length"); // the marked copy is longer
  const body = await response.blob();
  const cache = await caches.open(USER_CACHE + user);
  await cache.put(url.href, new Response(body, { status: 200, headers })); // replaces it, and moves it last
  const keys = await cache.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - KEEP_PAGES)).map((old) => cache.delete(old)));
}

async function keptPage(href) {
  const user = await signedIn();
  // Anyone else's kept pages are of a session that ended: they go now.
  for (const name of await caches.keys()) {
    if (name.startsWith(USER_CACHE) && name !== USER_CACHE + user) await caches.delete(name);
  }
  if (!user) return null;
  // Asked a few times: a just-started worker has been seen to miss an entry its cache holds (Chromium, offline).
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const hit = await (await caches.open(USER_CACHE + user)).match(href, { ignoreVary: true });
    if (hit) return hit;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return null;
}

// Who is signed in on this browser now: the session's cookie twin, read offline too; "" for nobody.
async function signedIn() {
  if (self.cookieStore) {
    const cookie = await self.cookieStore.get(USER_COOKIE).catch(() => null);
    return (cookie && cookie.value) || "";
  }
  // No cookieStore in this browser: whoever the last page answer the worker saw was for.
  const noted = await (await caches.open(SIGNED_IN)).match("/signed-in");
  return noted ? noted.text() : "";
}

async function noteSignedIn(response) {
  if (self.cookieStore) return;
  const user = response.type === "basic" && response.ok ? response.headers.get("X-Lantern-User") || "" : "";
  await (await caches.open(SIGNED_IN)).put("/signed-in", new Response(user));
}

// The kept page, told it is shown offline and as of when: the page's script draws the banner from this.
async function marked(kept) {
  const at = kept.headers.get("X-Lantern-Kept-At") || "";
  const html = (await kept.text()).replace("<body ", `<body data-offline-as-of="${at}" `);
  return new Response(html, { status: 200, headers: kept.headers });
}

async function asset(request) {
  const cache = await caches.open(STATIC_CACHE);
  const hit = await cache.match(request, { ignoreVary: true });
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}
