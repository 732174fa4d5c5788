import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Database } from '../../../shared/db/client.js';
import { databaseSessions, type ServerSession } from '../../../shared/db/server-admin.js';
import type { Stack } from './stack.js';

/**
 * Local TCP ports of a process's sockets: its fds that are sockets, looked up
 * by inode in the kernel's TCP tables (IPv4 and IPv6). A SIGSTOPped process
 * keeps its sockets, so this still works while it is stopped.
 */
function localPortsOf(pid: number): Set<number> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodes.add(match[1]!);
      } catch {
        // closed between the listing and the readlink
      }
    }
  } catch {
    return new Set();
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (fields.length > 9 && inodes.has(fields[9]!)) ports.add(parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/** The Postgres sessions a process holds on the database (matched by client port). */
export async function sessionsOfProcess(db: Database, databaseName: string, pid: number): Promise<ServerSession[]> {
  const ports = localPortsOf(pid);
  return (await databaseSessions(db, databaseName)).filter(
    (session) => session.clientPort !== null && ports.has(session.clientPort),
  );
}

/** Waits (up to `timeoutMs`) for the worker to be inside a transaction: the moment a fault hurts most. */
export async function waitUntilInTransaction(stack: Stack, pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const sessions = await sessionsOfProcess(stack.db(), stack.databaseName, pid).catch(() => []);
    if (sessions.some((session) => session.inTransaction)) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}
