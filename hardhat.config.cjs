// Hardhat 2 configuration. The compiler comes from the `solc` npm package, never from a download:
// this machine (and many self-hosters' boxes) cannot reach the compiler mirror.
const path = require("node:path");
const { subtask } = require("hardhat/config");
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require("hardhat/builtin-tasks/task-names");

const SOLC_VERSION = "0.8.28";

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, _hre, runSuper) => {
  if (args.solcVersion !== SOLC_VERSION) return runSuper();
  const solcPkg = require("solc/package.json");
  if (solcPkg.version !== SOLC_VERSION) {
    throw new Error(`solc npm package is ${solcPkg.version}, expected ${SOLC_VERSION}`);
  }
  return {
    compilerPath: path.join(path.dirname(require.resolve("solc/package.json")), "soljson.js"),
    isSolcJs: true,
    version: SOLC_VERSION,
    longVersion: SOLC_VERSION,
  };
});

/** @type {import('hardhat/config').HardhatUserConfig} */
module.exports = {
  solidity: {
    version: SOLC_VERSION,
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun" },
  },
  paths: {
    sources: "./contracts",
    tests: "./test/contracts",
    cache: "./cache",
    artifacts: "./artifacts",
  },
  networks: {
    hardhat: { chainId: 31337 },
  },
};
