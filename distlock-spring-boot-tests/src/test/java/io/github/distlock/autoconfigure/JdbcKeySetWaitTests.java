package io.github.distlock.autoconfigure;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.fixtures.jdbc.PrivateDatabase;

/** {@link AbstractKeySetWaitTests} on a private database of the machine's PostgreSQL. */
class JdbcKeySetWaitTests extends AbstractKeySetWaitTests {

	private static PrivateDatabase database;

	@BeforeAll
	static void createDatabase() {
		database = PrivateDatabase.postgresql();
	}

	@AfterAll
	static void dropDatabase() {
		database.close();
	}

	@Override
	ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
					JdbcLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + database.url(),
					"spring.datasource.username=" + database.user(), "distlock.backend=jdbc",
					"distlock.jdbc.initialize-schema=true");
	}

}
