// A mocha reporter for mutation runs: the full titles of the tests that passed, failed or were
// skipped, written to the file named by the reporter option `output` at the end of the run. Mocha's
// own JSON reporter serialises each error whole, and viem's errors carry bigints, which
// JSON.stringify refuses: the run then ends without a report. Only the error's message is kept here.
const { writeFileSync } = require("node:fs");
const Mocha = require("mocha");

const { EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_RUN_END } = Mocha.Runner.constants;

class TitlesReporter extends Mocha.reporters.Base {
  constructor(runner, options) {
    super(runner, options);
    const output = options.reporterOption?.output ?? options.reporterOptions?.output;
    const report = { passes: [], failures: [], pending: [] };
    const entry = (test) => ({ fullTitle: test.fullTitle(), file: test.file, duration: test.duration });
    runner.on(EVENT_TEST_PASS, (test) => report.passes.push(entry(test)));
    runner.on(EVENT_TEST_PENDING, (test) => report.pending.push(entry(test)));
    runner.on(EVENT_TEST_FAIL, (test, error) => report.failures.push({ ...entry(test), err: { message: String(error?.message ?? error).slice(0, 2000) } }));
    runner.once(EVENT_RUN_END, () => writeFileSync(output, JSON.stringify(report)));
  }
}

module.exports = TitlesReporter;
