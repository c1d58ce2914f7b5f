/**
 * The Application's notification sinks: condition NotificationsReady, False (reason SinkInvalid) while a
 * sink is missing or its Secret is not usable, naming each problem; True (SinksReady) once every sink is.
 */
import { setCondition } from "../../status/conditions.ts";
import { type ApplicationContext, writeStatus } from "./context.ts";

/** Whether NotificationsReady changed (and was written): the reconcile continues with a fresh copy. */
export async function sinksChecked(c: ApplicationContext): Promise<boolean> {
  const { app, o } = c;
  if (!app.spec.notifications?.length || !o.checkSink) return false;
  const problems: string[] = [];
  for (const n of app.spec.notifications) {
    await o.checkSink(c.ns, n.sinkRef.name).catch((err) => problems.push((err as Error).message));
  }
  const wanted = problems.length
    ? { type: "NotificationsReady", status: "False", reason: "SinkInvalid", message: problems.join("; ") }
    : { type: "NotificationsReady", status: "True", reason: "SinksReady", message: "every sink is usable" };
  const current = app.status?.conditions?.find((x) => x.type === "NotificationsReady");
  if (current?.status === wanted.status && current?.message === wanted.message) return false;
  await writeStatus(c, { conditions: setCondition(app.status?.conditions, wanted, c.now()) });
  return true;
}
