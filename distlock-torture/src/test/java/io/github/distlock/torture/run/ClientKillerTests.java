package io.github.distlock.torture.run;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connection killer picks the workers' connections out of {@code CLIENT LIST}, and no other: the keyspace
 * recorder and the harness's own connections must survive a connection kill.
 */
class ClientKillerTests {

	@Test
	void onlyConnectionsNamedForAWorkerAreChosen() {
		String clientList = """
				id=3 addr=127.0.0.1:50110 laddr=127.0.0.1:6379 fd=8 name= age=40 idle=0 flags=P db=0 sub=0 psub=1
				id=7 addr=127.0.0.1:50120 laddr=127.0.0.1:6379 fd=9 name=torture-worker-w1 age=30 idle=0 flags=N db=0
				id=8 addr=127.0.0.1:50122 laddr=127.0.0.1:6379 fd=10 name=torture-worker-w2 age=30 idle=1 flags=N db=0
				id=9 addr=127.0.0.1:50124 laddr=127.0.0.1:6379 fd=11 name=other-app age=30 idle=1 flags=N db=0
				""";
		assertThat(ClientKiller.workerConnections(clientList)).containsExactly("7", "8");
	}

}
