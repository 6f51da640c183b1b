package io.github.distlock.autoconfigure;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

import io.github.distlock.LockFailureHandler;
import io.github.distlock.execution.LockExecution;
import io.github.distlock.interceptor.LockOperationSource;

/**
 * The locks applied by AspectJ's weaving ({@code distlock.aop.mode=aspectj}): the aspect of {@code distlock-aspectj}
 * is configured with the application's lock infrastructure, and start-up fails when it cannot lock, or when it would
 * lock a second time beside the proxies.
 */
@Configuration(proxyBeanMethods = false)
class AspectJLockConfiguration {

	static final String ASPECT = "io.github.distlock.aspectj.DistributedLockAspect";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = ASPECT)
	static class WithAspect {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		@ConditionalOnProperty(name = "distlock.aop.mode", havingValue = "aspectj")
		static WovenLocks wovenLocks(ObjectProvider<LockOperationSource> operations,
				ObjectProvider<LockExecution> execution, ObjectProvider<LockFailureHandler> failureHandler,
				BeanFactory beanFactory) {
			LockOperationSource source = operations.getObject();
			return new WovenLocks(
					DistLockAutoConfiguration.lockAspectSupport(source, execution, failureHandler, beanFactory), source);
		}

		/** With the aspect woven and the proxies applying the locks too, each call would take its lock twice. */
		@Bean
		@ConditionalOnProperty(name = "distlock.aop.mode", havingValue = "proxy", matchIfMissing = true)
		static WovenLocks.NotWovenInProxyMode notWovenInProxyMode() {
			return new WovenLocks.NotWovenInProxyMode();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(ASPECT)
	@ConditionalOnProperty(name = "distlock.aop.mode", havingValue = "aspectj")
	static class WithoutAspect {

		@Bean
		static Object distlockAspectMissing() {
			throw new LockSetupException("distlock.aop.mode=aspectj, but distlock's aspect is not on the class "
					+ "path.", "Add the dependency io.github.distlock:distlock-aspectj (version from distlock-bom), "
							+ "and start the JVM with -javaagent:aspectjweaver.jar; or remove distlock.aop.mode to "
							+ "lock through proxies.");
		}

	}

}
