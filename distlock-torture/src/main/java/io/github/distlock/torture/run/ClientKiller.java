package io.github.distlock.torture.run;

import java.util.ArrayList;
import java.util.List;

import io.github.distlock.fixtures.redis.RespClient;

/**
 * Kills the workers' connections to the lock server, and only theirs. Each worker names its connections
 * {@code torture-worker-<worker>} ({@code spring.data.redis.client-name}), so the killer lists the connections of
 * one type ({@code CLIENT LIST TYPE normal|pubsub}) and kills those by id ({@code CLIENT KILL ID}).
 * <p>
 * Not {@code CLIENT KILL TYPE ... SKIPME yes}: that would also cut the keyspace recorder's subscription, the
 * witness that must stay connected exactly while a fault might cost a lock, and any connection of the harness
 * itself.
 */
final class ClientKiller {

	/** The client name every worker gives its connections, followed by the worker's name. */
	static final String NAME_PREFIX = "torture-worker-";

	private final int port;

	ClientKiller(int port) {
		this.port = port;
	}

	/**
	 * Kills every worker connection of the type now open.
	 * @param type {@code normal} or {@code pubsub}
	 * @return how many were killed
	 */
	int kill(String type) {
		try (RespClient redis = new RespClient("127.0.0.1", this.port)) {
			int killed = 0;
			for (String id : workerConnections((String) redis.call("CLIENT", "LIST", "TYPE", type))) {
				// 0 when it closed by itself meanwhile.
				killed += ((Long) redis.call("CLIENT", "KILL", "ID", id)).intValue();
			}
			return killed;
		}
	}

	/** The ids of the workers' connections in a {@code CLIENT LIST} reply, one client a line. */
	static List<String> workerConnections(String clientList) {
		List<String> ids = new ArrayList<>();
		for (String client : clientList.split("\n")) {
			String id = null;
			String name = null;
			for (String field : client.trim().split(" ")) {
				if (field.startsWith("id=")) {
					id = field.substring(3);
				}
				else if (field.startsWith("name=")) {
					name = field.substring(5);
				}
			}
			if (id != null && name != null && name.startsWith(NAME_PREFIX)) {
				ids.add(id);
			}
		}
		return ids;
	}

}
