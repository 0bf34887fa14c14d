// Installs the headless browser the OAuth browser test drives (test/oauth/browser.test.ts): Debian's `chromium`
// package, when /usr/bin/chromium is missing, so that `npm test` works on a fresh machine with nothing installed by hand.
// Playwright's own browser download is not used: it comes from a CDN, and the project reaches only package registries.
// Plain .mjs on purpose: it runs before the pinned Node 24 may exist.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';

if (!existsSync(CHROMIUM)) {
  const root = process.getuid?.() === 0;
  const sudo = root ? '' : 'sudo -n ';
  if (!existsSync('/usr/bin/apt-get') || (!root && !existsSync('/usr/bin/sudo'))) {
    console.error(
      `No ${CHROMIUM}, and no way to install it here (needs apt-get as root or with sudo). Install Debian's ` +
        "'chromium' package (or any Chromium at that path): the OAuth browser test needs it.",
    );
    process.exit(1);
  }
  console.log("Installing Chromium for the browser test (Debian's 'chromium' package)…");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execSync(`${sudo}apt-get update -qq`, { stdio: 'inherit', env });
  execSync(`${sudo}apt-get install -y -qq chromium`, { stdio: ['ignore', 'ignore', 'inherit'], env });
}
