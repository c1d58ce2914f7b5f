/**
 * git:// (git daemon, TCP 9418, no authentication): a TCP connection that asks for `git-upload-pack` with
 * one pkt-line (protocol v0), then carries the exchange of upload_pack_stream.ts.
 */
import { connect } from "node:net";
import { pktLine, type UploadPackStream } from "./upload_pack_stream.ts";

export interface GitDaemonTarget {
  host: string;
  port: number;
  /** Repository path on the server, with its leading slash. */
  path: string;
  timeoutMs?: number;
}

export function openGitDaemon(t: GitDaemonTarget): () => Promise<UploadPackStream> {
  return () =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: t.host, port: t.port });
      socket.setTimeout(t.timeoutMs ?? 5 * 60_000, () =>
        socket.destroy(new Error(`git://${t.host}:${t.port} timed out`)));
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        // host= lets a daemon serving several virtual hosts pick the repository.
        socket.write(pktLine(`git-upload-pack ${t.path}\0host=${t.host}\0`));
        resolve(socket);
      });
    });
}
