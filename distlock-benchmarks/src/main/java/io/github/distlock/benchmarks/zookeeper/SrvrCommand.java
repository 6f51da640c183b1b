package io.github.distlock.benchmarks.zookeeper;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import io.github.distlock.benchmarks.lockserver.ServerCounters;

/**
 * Reads what a ZooKeeper server has done so far with its {@code srvr} command: the requests it received from
 * clients, and the last transaction it applied. Every write (create, delete, set, and a session's start and end) is
 * one transaction with the next zxid, so the zxid counts the writes.
 * <p>
 * The command is the same for every client library, and needs no client of its own whose requests would mix with
 * those counted.
 */
final class SrvrCommand {

	private SrvrCommand() {
	}

	static ServerCounters read(int port) throws IOException {
		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
			socket.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
			socket.getOutputStream().flush();
			// The server answers and closes the connection.
			String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
			return new ServerCounters(Long.parseLong(field(answer, "Received")), Long.decode(field(answer, "Zxid")));
		}
	}

	private static String field(String answer, String name) {
		for (String line : answer.split("\n")) {
			if (line.startsWith(name + ":")) {
				return line.substring(name.length() + 1).strip();
			}
		}
		throw new IllegalStateException("No '" + name + "' in the server's srvr answer: " + answer);
	}

}
