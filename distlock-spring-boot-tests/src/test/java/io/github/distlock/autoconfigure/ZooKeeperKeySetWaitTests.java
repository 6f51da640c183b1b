package io.github.distlock.autoconfigure;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link AbstractKeySetWaitTests} on a real ZooKeeper server in this JVM. */
class ZooKeeperKeySetWaitTests extends AbstractKeySetWaitTests {

	private static TestingServer server;

	@BeforeAll
	static void startServer() throws Exception {
		// One fsync per lock node would make the suite crawl on a slow disk.
		System.setProperty("zookeeper.forceSync", "no");
		server = new TestingServer(true);
	}

	@AfterAll
	static void stopServer() throws Exception {
		server.close();
	}

	@Override
	ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					ZooKeeperLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withPropertyValues("distlock.backend=zookeeper",
					"distlock.zookeeper.connect-string=" + server.getConnectString());
	}

}
