/**
 * Global options a command must opt into. A kubectl-style tool puts --kubeconfig, --context and -n on
 * its root so they work before or after the command name, and commander then lists them under every
 * command's "Global Options:", also where the command ignores them (`edgectl generate`). A tool marks
 * such options as scoped; each command declares the ones it uses, and its help shows only those, with
 * the command's own wording where the meaning differs. Unscoped globals (--version) always show.
 *
 * @example
 * scopeGlobalOptions(program, ["kubeconfig", "context", "namespace"]);
 * useGlobalOptions(program.command("get"), { kubeconfig: true, context: true, namespace: true });
 * useGlobalOptions(program.command("generate"), { namespace: "Namespace of the Pod (default: kube-system)" });
 */
import { type CommandUnknownOpts, Help, type Option } from "@commander-js/extra-typings";

/** Per root command: the attribute names (`kubeconfig`, `namespace`) of options commands opt into. */
const scopedByRoot = new WeakMap<CommandUnknownOpts, ReadonlySet<string>>();
/** Per command: the scoped options it uses, each with its help text there (undefined: the option's own). */
const usedByCommand = new WeakMap<CommandUnknownOpts, ReadonlyMap<string, string | undefined>>();

function root(command: CommandUnknownOpts): CommandUnknownOpts {
  let c = command;
  while (c.parent) c = c.parent;
  return c;
}

/** Marks `program`'s options named by attribute (`kubeconfig`, `namespace`) as used only where declared. */
export function scopeGlobalOptions(program: CommandUnknownOpts, names: readonly string[]): void {
  scopedByRoot.set(program, new Set(names));
  useGlobalOptions(program, {});
}

/**
 * Declares the scoped global options `command` and its subcommands use (a subcommand's own
 * declaration replaces it). A string value is the option's help text for this command.
 */
export function useGlobalOptions(command: CommandUnknownOpts, used: Record<string, true | string>): void {
  usedByCommand.set(
    command,
    new Map(Object.entries(used).map(([name, text]) => [name, text === true ? undefined : text])),
  );
}

/** The nearest declaration from `command` up; undefined when nothing on the way declared one. */
function declaration(command: CommandUnknownOpts): ReadonlyMap<string, string | undefined> | undefined {
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent) {
    const used = usedByCommand.get(c);
    if (used) return used;
  }
  return undefined;
}

/** Whether `command` uses the global option `name` (always true for an option that is not scoped). */
export function usesGlobalOption(command: CommandUnknownOpts, name: string): boolean {
  if (!scopedByRoot.get(root(command))?.has(name)) return true;
  return declaration(command)?.has(name) ?? true;
}

/**
 * Commander's "Global Options:" for `command`, without the scoped options it does not use and with
 * its own help text where it declared one. Installed by createProgram through configureHelp.
 */
export function visibleGlobalOptions(helper: Help, command: CommandUnknownOpts): Option[] {
  const all = Help.prototype.visibleGlobalOptions.call(helper, command as never) as Option[];
  const scoped = scopedByRoot.get(root(command));
  const used = declaration(command);
  if (!scoped || !used) return all;
  return all.flatMap((option) => {
    const name = option.attributeName();
    if (!scoped.has(name)) return [option];
    if (!used.has(name)) return [];
    const text = used.get(name);
    if (text === undefined) return [option];
    // A copy with this command's wording; the option the parser uses is unchanged.
    return [Object.assign(Object.create(Object.getPrototypeOf(option)), option, { description: text })];
  });
}
