// Where the Anvil binary is: inside Foundry's platform package (@foundry-rs/anvil-<os>-<arch>), an
// optional dependency of ours that npm installs, offline from the registry tarball, on the machine it
// fits. We depend on the platform package itself rather than the @foundry-rs/anvil wrapper: the
// wrapper lists every platform's package, and a lock file must then name them all, which only a
// registry that carries all of them can produce. Found through Node's resolution, never a hard-coded
// node_modules path, so a hoisted or nested install works alike.
import { accessSync, constants, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { AppError } from "../errors.js";

export interface AnvilBinary {
  path: string;
  /** The platform package's version, e.g. "1.7.1": the snapshot format is pinned to it. */
  version: string;
}

const ARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };

/** The platform package's name for this machine, e.g. @foundry-rs/anvil-linux-amd64. */
export function anvilPackageName(platform: string = process.platform, arch: string = process.arch): string {
  return `@foundry-rs/anvil-${platform}-${ARCH[arch] ?? arch}`;
}

export function anvilBinary(): AnvilBinary {
  const name = anvilPackageName();
  try {
    const manifest = createRequire(import.meta.url).resolve(`${name}/package.json`);
    const path = join(dirname(manifest), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
    accessSync(path, constants.X_OK);
    const version = (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
    return { path, version };
  } catch (e) {
    throw new AppError(
      "CHAIN_UNAVAILABLE",
      `no Anvil binary for ${process.platform}-${process.arch} (package ${name}): the embedded chain needs it; ` +
        `install it (npm install --no-save ${name}@1.7.1; the lock file carries linux-x64's only) or run against a chain with --rpc-url`,
      { cause: e },
    );
  }
}
