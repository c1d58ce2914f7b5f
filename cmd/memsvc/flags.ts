/** What several memsvc commands share on the command line. */
import { Option } from "@commander-js/extra-typings";

/** `--url`, the older spelling of `--server`: still accepted, no longer shown. */
export function urlAlias() {
  return new Option("--url <base>", "the older spelling of --server").hideHelp();
}
