import { assert } from "chai";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import * as fsPromises from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenStateFile } from "../../client/src/listen-state.js";
import { JsonFileRenewalStore } from "../../client/src/renewals.js";

/**
 * Issue 44: the listen state (`stablecoin-events listen --state`) and the renewal store
 * (`stablecoin-renewals`) replace their file through a temporary file. One at a predictable name
 * (`<path>.tmp`) lets another user of the machine plant a symlink there and have the write land in a
 * file of their choosing: the temporary file has a random name and is created exclusively, 0600.
 */
describe("the client's state files: replaced whole through a temporary file nobody can plant", () => {
  let dir: string;
  let victim: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "replace-file-"));
    victim = join(dir, "victim");
    writeFileSync(victim, "someone else's file\n");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A symlink planted at the old predictable name, pointing at a file the writer can write. */
  const plant = (path: string) => symlinkSync(victim, `${path}.tmp`);

  /** The file written is a plain file only its owner reads, the victim is untouched, and no temporary file is left. */
  function assertWrittenSafely(path: string): void {
    assert.equal(readFileSync(victim, "utf8"), "someone else's file\n", "the write did not follow the planted link");
    assert.isTrue(lstatSync(path).isFile(), "a plain file, not the planted link renamed into place");
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.sameMembers(readdirSync(dir), ["victim", `${path.split("/").pop()}`, `${path.split("/").pop()}.tmp`], "no temporary file left behind");
  }

  it("stablecoin-events listen --state: a symlink at <state>.tmp is never written through", async () => {
    const path = join(dir, "state.json");
    plant(path);
    const state = listenStateFile(fsPromises, path);
    assert.isUndefined(await state.read());
    await state.write("evt_1");
    await state.write("evt_2");
    assert.equal(await state.read(), "evt_2");
    assertWrittenSafely(path);
  });

  it("stablecoin-renewals' JSON-file store: a symlink at <store>.tmp is never written through", async () => {
    const path = join(dir, "renewals.json");
    plant(path);
    const store = new JsonFileRenewalStore(path);
    await store.put({ subscription_id: "0xa", renewed_period: 3 });
    assert.equal((await new JsonFileRenewalStore(path).get("0xa"))!.renewed_period, 3);
    assertWrittenSafely(path);
  });
});
