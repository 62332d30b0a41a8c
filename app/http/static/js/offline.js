// Kept for a reload without the network: the page registers the console's service worker (sw.js),
// which keeps the app and the server's last answers. The first time the worker takes the page
// over, the page asks again for what it read at its start, so the worker holds those answers too.
export function keepForOffline(readAgain) {
  if (!("serviceWorker" in navigator)) return;
  const ready = () => { document.body.dataset.offline = "kept"; };
  if (navigator.serviceWorker.controller) ready();
  else {
    navigator.serviceWorker.addEventListener("controllerchange", () => readAgain().then(ready, () => {}), { once: true });
  }
  navigator.serviceWorker.register("/sw.js", { scope: "/view" }).catch(() => {});
}
