package io.github.distlock.process;

import javax.sql.DataSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/** The database the instances of the multi-process tests share ({@code fence.url}), with its transactions. */
@Configuration(proxyBeanMethods = false)
@EnableTransactionManagement
class FenceDatabase {

	@Bean
	DataSource dataSource(Environment environment) {
		return new DriverManagerDataSource(environment.getRequiredProperty("fence.url"));
	}

	@Bean
	PlatformTransactionManager transactionManager(DataSource dataSource) {
		return new DataSourceTransactionManager(dataSource);
	}

}
