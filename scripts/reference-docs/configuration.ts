// The generated section of docs/configuration.md: every flag of FLAGS (daemon/config.ts) with its
// environment twin, named by config.ts's own envName, then the maintenance commands as commander
// declares them in daemon/cli-entry.ts. Building the program parses nothing and starts nothing.
import type { Command, Option } from "commander";
import { envName, FLAGS, type ConfigKey, type FlagSpec } from "../../daemon/config.js";
import { program } from "../../daemon/cli-entry.js";
import { code, table, text } from "./markdown.js";

/**
 * Sections of the flag table, by the flags' keys; the first that matches takes a flag. A new flag
 * goes where its name puts it (a new `sim*` flag among the sim's), or under "Other flags".
 */
const GROUPS: Array<{ title: string; has: RegExp }> = [
  { title: "Serving the API", has: /^(host|port|publicUrl|corsOrigins|tls[A-Z]\w*|trustProxy|sessionMaxAge\w*|signInRateLimit|orderRateLimit)$/ },
  { title: "Data, logs and metrics", has: /^(dataDir|logLevel|metricsPort)$/ },
  { title: "Exchange", has: /^(exchange\w*|allowMainnet|marketSlippage|read[A-Z]\w*)$/ },
  { title: "Embedded sim exchange", has: /^sim[A-Z]/ },
  { title: "Chain", has: /^(rpcUrl|chain[A-Z]\w*|factoryAddress|settlementToken|operatorKeyFile)$/ },
  { title: "Oracle and enforcement", has: /^(oracleInterval|staleAfter|priceStream|breachMargin|deadManSeconds)$/ },
  { title: "Alerts and webhooks", has: /^(alert[A-Z]\w*|webhooks[A-Z]\w*)$/ },
  { title: "PostgreSQL (several daemons on one database)", has: /^(databaseUrl|db[A-Z]\w*)$/ },
  { title: "Other flags", has: /./ },
];

/** What a flag is when it is not given, as its environment twin would say it. */
function defaultOf(spec: FlagSpec): string {
  if (spec.default !== undefined) return code(spec.default);
  // A switch's value is the config's (false; true for a --no-x switch): the flag says the opposite.
  if (spec.toggle) return `${code(String(spec.field.parse(undefined)))} (switch)`;
  return spec.list ? "none (a list)" : "none";
}

const flagRow = (spec: FlagSpec): string[] => [code(spec.flag), code(envName(spec)), defaultOf(spec), text(spec.description)];

function flagTables(): string[] {
  const keys = Object.keys(FLAGS) as ConfigKey[];
  const groupOf = (key: string) => GROUPS.find((g) => g.has.test(key))!.title;
  return GROUPS.flatMap(({ title }) => {
    const specs = keys.filter((k) => groupOf(k) === title).map((k) => FLAGS[k] as FlagSpec);
    if (specs.length === 0) return [];
    return [`### ${title}`, "", ...table(["Flag", "Environment", "Default", "Meaning"], specs.map(flagRow)), ""];
  });
}

/** Commander's descriptions are lower case, without a full stop (as --help prints them). */
const sentence = (s: string) => text(`${s.charAt(0).toUpperCase()}${s.slice(1)}`.replace(/\.?$/, "."));

/** The text a command's help ends with (its examples): what `--help` prints after the help proper. */
function helpAfter(cmd: Command): string {
  let out = "";
  cmd.configureOutput({ writeOut: (s) => (out += s), getOutHelpWidth: () => 100 });
  cmd.outputHelp();
  const body = cmd.helpInformation();
  return out.slice(out.indexOf(body) + body.length).trim();
}

function optionRow(o: Option): string[] {
  const dflt = o.defaultValue !== undefined ? code(String(o.defaultValue)) : o.mandatory ? "required" : "none";
  return [code(o.flags), o.envVar ? code(o.envVar) : "none", dflt, text(o.description)];
}

function commandSection(cmd: Command): string[] {
  const example = helpAfter(cmd);
  const args = cmd.registeredArguments.map((a) => [code(a.required ? `<${a.name()}>` : `[${a.name()}]`), text(a.description)]);
  return [
    `### ${code(`tradevaultd ${cmd.name()} ${cmd.usage()}`)}`, "",
    `${sentence(cmd.description())}`, "",
    ...(args.length ? [...table(["Argument", "Meaning"], args), ""] : []),
    ...(cmd.options.length ? [...table(["Option", "Environment", "Default", "Meaning"], cmd.options.map(optionRow)), ""] : []),
    ...(example ? ["```", example, "```", ""] : []),
  ];
}

/** The section between the markers of docs/configuration.md. */
export function renderConfiguration(): string {
  const cmd = program();
  const flagged = new Set(Object.values(FLAGS).map((s) => s.flag));
  const others = cmd.options.filter((o) => !flagged.has(o.flags)).map((o) => `${code(o.flags)} (${text(o.description)})`);
  return [
    "## Every flag", "",
    `${Object.keys(FLAGS).length} flags, from \`FLAGS\` in daemon/config.ts. Besides them: ${[...others, "`-h, --help`"].join(", ")}.`, "",
    ...flagTables(),
    "## Commands", "",
    `\`${cmd.name()} [flags]\` runs the daemon; these commands, from daemon/cli-entry.ts, do one job without starting the daemon, and exit: 0 done, 1 refused or failed (one line saying why), 2 a usage error.`, "",
    ...cmd.commands.flatMap(commandSection),
  ].join("\n");
}
