package io.github.distlock.autoconfigure;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.fixtures.etcd.TestEtcd;

/** {@link AbstractKeySetWaitTests} on a real etcd process. */
class EtcdKeySetWaitTests extends AbstractKeySetWaitTests {

	private static TestEtcd etcd;

	@BeforeAll
	static void startEtcd() throws Exception {
		etcd = TestEtcd.single();
	}

	@AfterAll
	static void stopEtcd() {
		if (etcd != null) {
			etcd.close();
		}
	}

	@Override
	ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					EtcdLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withPropertyValues("distlock.backend=etcd",
					"distlock.etcd.endpoints=" + String.join(",", etcd.endpoints()));
	}

}
