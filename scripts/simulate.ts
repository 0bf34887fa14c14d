/**
 * `npm run simulate -- [--days 7] [--customers 200] [--seed 1]`: plays a seeded store week against the running
 * `npm start` stack (local/simulate/week.ts) in a store made for the run, advancing the local clock, with a progress
 * bar, then prints what it played, what the service counted and whether every number reconciles. Exit code 1 when an
 * invariant does not hold. Local only: it advances the clock and simulates SES events, which a deployment has not.
 */
import { parseArgs } from 'node:util';
import { simulateWeek } from '#local/simulate/week.ts';
import { isRunning, readStackFile, useRunningStack } from '#local/stack-file.ts';
import { createStore, issuePublishableKey } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

const { values } = parseArgs({
  options: { days: { type: 'string' }, customers: { type: 'string' }, seed: { type: 'string' } },
});
const whole = (name: string, text: string | undefined, fallback: number, max: number) => {
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    console.error(`--${name} must be a whole number from 1 to ${max}`);
    process.exit(2);
  }
  return value;
};
const days = whole('days', values.days, 7, 31);
const customers = whole('customers', values.customers, 200, 5000);
const seed = whole('seed', values.seed, 1, 2 ** 31);

const stack = readStackFile();
if (!stack || !isRunning(stack)) {
  console.error('No local stack is running: start it with `npm start` in another terminal, then run this again.');
  process.exit(2);
}
// The store for the run is made as the admin command makes one: straight in the running stack's table.
useRunningStack(stack);
const origin = `https://sim-${seed}.example`;
const { store, apiKey } = await createStore(storeAdminDeps(), {
  name: `Simulated store (seed ${seed})`,
  type: 'direct',
});
const { publishableKey } = await issuePublishableKey(storeAdminDeps(), store.storeId, { origins: [origin] });

const bar = (done: number, total: number, step: string) => {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${step}   `);
  if (done === total) process.stderr.write('\n');
};

console.log(`Playing ${days} days of ${customers} customers (seed ${seed}) in store ${store.storeId} …`);
const report = await simulateWeek(
  {
    urls: { main: stack.mainUrl, front: stack.frontUrl, sending: stack.sendingUrl, mail: stack.mailUrl },
    sqsEndpoint: stack.services.sqs,
    store: { storeId: store.storeId, apiKey, publishableKey, origin },
  },
  { days, customers, seed, onProgress: bar },
);

const { played, counted } = report;
console.log(`
Store ${report.storeId}, ${report.days.from} to ${report.days.to} (store key ${apiKey})
Played:  ${played.customers} customers, ${played.signUps} storefront sign-ups, ${played.pageViews} page views, ${played.carts} carts, ${played.checkouts} checkouts,
         ${played.paidOrders} paid orders (${Object.entries(played.paidRevenue)
           .map(([c, v]) => `${c} ${v}`)
           .join(
             ', ',
           )}), ${played.opens} opens, ${played.clicks} clicks, ${played.bulkSent} bulk emails, ${played.campaigns} campaign
Counted: ${counted.emailed} emails sent (flow ${counted.byKind.flow}, campaign ${counted.byKind.campaign}, bulk ${counted.byKind.bulk}; ${counted.mailsInSes} in the local SES; ${counted.confirmationsInSes} sign-up confirmations apart),
         ${counted.delivered} delivered, ${counted.bounced} bounced, ${counted.opened} opened, ${counted.clicked} clicked,
         recovered ${counted.recovered.orders} orders, influenced ${counted.influenced.orders}

Invariants:`);
for (const invariant of report.invariants) {
  console.log(`  ${invariant.holds ? 'ok  ' : 'FAIL'} ${invariant.name}: ${invariant.detail}`);
}
console.log(`\nOpen the console for this store: ${stack.mainUrl}/back-office (see README, "The console").`);
process.exit(report.invariants.every((i) => i.holds) ? 0 : 1);
