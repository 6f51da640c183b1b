package io.github.distlock.autoconfigure;

import javax.sql.DataSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.jdbc.JdbcLockEngine;

/**
 * The database lock engine, when {@code distlock-jdbc} is on the class path and {@code distlock.backend} is
 * {@code jdbc} or unset with no other engine present: on the application's {@link DataSource}, in the table
 * {@code distlock.jdbc.table-name}, created at start-up only when {@code distlock.jdbc.initialize-schema} is on. The
 * table is read once before the first lock, so a missing table or privilege fails start-up with what to do.
 */
@AutoConfiguration(before = DistLockAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(JdbcLockEngine.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnLockBackend(LockBackend.JDBC)
@EnableConfigurationProperties(DistLockProperties.class)
public final class JdbcLockEngineAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockEngine.class)
	JdbcLockEngine distLockEngine(ObjectProvider<DataSource> dataSource, DistLockProperties properties,
			ObjectProvider<LockLostListener> listeners) {
		DataSource source = dataSource.getIfUnique();
		if (source == null) {
			throw new IllegalStateException("distlock's JDBC engine needs one DataSource: set spring.datasource.url "
					+ "(with spring-boot-starter-jdbc), or define a single DataSource bean (or mark one @Primary)");
		}
		JdbcLockProperties jdbc = properties.getJdbc();
		JdbcLockEngine engine = new JdbcLockEngine(source, jdbc.getTableName(), jdbc.getStatementTimeout(),
				jdbc.getPollInterval(), (lost) -> DistLockAutoConfiguration.notifyAll(listeners, lost));
		try {
			if (jdbc.isInitializeSchema()) {
				engine.createTableIfMissing();
			}
			engine.checkTable();
		}
		catch (RuntimeException ex) {
			engine.close();
			throw ex;
		}
		return engine;
	}

}
