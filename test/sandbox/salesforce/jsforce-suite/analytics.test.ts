// jsforce's integration file test/analytics.test.ts (20 tests) runs reports and dashboards that its org
// setup deploys. The sandbox serves no Analytics REST API (reports, dashboards), so every test is skipped.
import { test } from 'node:test';

const REASON =
  'unsupported feature: Analytics REST API (reports and dashboards) is not served by the sandbox';

for (const name of [
  'list recent reports',
  'describe a report',
  'execute a report synchronously',
  'execute a report with detail rows',
  'execute a report with overridden filters',
  'execute a report asynchronously',
  'list report instances',
  'retrieve a report instance',
  'explain a report query plan',
  'clone a report',
  'destroy the cloned report',
  'list recent dashboards',
  'describe a dashboard',
  'get all dashboard components',
  'get one dashboard component',
  'get three dashboard components',
  'get dashboard status',
  'clone a dashboard',
  'refresh the cloned dashboard',
  'destroy the cloned dashboard',
]) {
  test(name, (t) => t.skip(REASON));
}
