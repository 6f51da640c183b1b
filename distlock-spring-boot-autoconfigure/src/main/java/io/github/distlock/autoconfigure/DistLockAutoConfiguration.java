package io.github.distlock.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.util.function.SingletonSupplier;

import io.github.distlock.DistributedLockTemplate;
import io.github.distlock.LockFailureHandler;
import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.execution.ExecutionLockTemplate;
import io.github.distlock.execution.LockDefaults;
import io.github.distlock.execution.LockExecution;
import io.github.distlock.execution.LockTransactionListenerRegistrar;
import io.github.distlock.interceptor.LockAdvisor;
import io.github.distlock.interceptor.LockAspectSupport;
import io.github.distlock.interceptor.LockDefinitionValidator;
import io.github.distlock.interceptor.LockInterceptor;
import io.github.distlock.interceptor.LockKeyEvaluator;
import io.github.distlock.interceptor.LockOperationSource;
import io.github.distlock.interceptor.LockOutsideResilienceAdvice;

/**
 * Auto-configuration of {@code @DistributedLock}: the advice that applies it, the template and the one execution
 * core they share, on whichever lock engine the application has (an engine's own auto-configuration, such as
 * {@link RedisLockEngineAutoConfiguration}, or a {@link LockEngine} bean of the application's). Without an engine,
 * start-up fails and names the engines there are.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistLockProperties.class)
@Import({ LockProxyRegistrar.class, AspectJLockConfiguration.class })
public final class DistLockAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DistLockAutoConfiguration.class);

	/** Tells every {@code LockLostListener} bean of a loss; engine configurations hand this to their engine. */
	static void notifyAll(ObjectProvider<LockLostListener> listeners, LostLock lost) {
		listeners.orderedStream().forEach((listener) -> {
			try {
				listener.onLockLost(lost);
			}
			catch (RuntimeException ex) {
				// One failing listener must not keep the others from hearing of the loss.
				logger.warn("LockLostListener " + listener + " failed for " + lost, ex);
			}
		});
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LockOperationSource lockOperationSource(Environment environment, ConfigurableBeanFactory beanFactory) {
		DistLockProperties settings = bindEarly(environment);
		return new LockOperationSource(defaults(settings), new EmbeddedValueResolver(beanFactory),
				settings.getAop().getMode());
	}

	private static LockDefaults defaults(DistLockProperties settings) {
		return new LockDefaults(settings.getLease(), settings.getWaitTime(), settings.getMaxLease(),
				settings.getOnLost());
	}

	/**
	 * The one lock holder of the application, shared by the advice and the template so that each enters the locks
	 * the other holds. Infrastructure, since the advisor needs it while post-processors are being registered; it
	 * looks the engine and the registry up on first use.
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LockExecution lockExecution(ObjectProvider<LockEngine> engine,
			ObjectProvider<ObservationRegistry> observationRegistry) {
		return new LockExecution(SingletonSupplier.of(engine::getObject),
				SingletonSupplier.of(() -> observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP)));
	}

	/** The locks applied by proxies: distlock.aop.mode=proxy, the default. */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	@ConditionalOnProperty(name = "distlock.aop.mode", havingValue = "proxy", matchIfMissing = true)
	static LockAdvisor lockAdvisor(ObjectProvider<LockOperationSource> operations,
			ObjectProvider<LockExecution> execution, ObjectProvider<LockFailureHandler> failureHandler,
			Environment environment, BeanFactory beanFactory) {
		LockOperationSource source = operations.getObject();
		LockAspectSupport support = lockAspectSupport(source, execution, failureHandler, beanFactory);
		return new LockAdvisor(source, new LockInterceptor(support), bindEarly(environment).getAop().getOrder());
	}

	/** Runs the locked calls, for the proxies' advice or for AspectJ's aspect. */
	static LockAspectSupport lockAspectSupport(LockOperationSource operations, ObjectProvider<LockExecution> execution,
			ObjectProvider<LockFailureHandler> failureHandler, BeanFactory beanFactory) {
		// The handler is looked up once all singletons exist, not here: the advice is created before other beans.
		return new LockAspectSupport(operations, new LockKeyEvaluator(beanFactory), execution.getObject(),
				failureHandler::getIfAvailable);
	}

	/** Programmatic locking on the same holder, engine, registry and defaults as the annotation. */
	@Bean
	@ConditionalOnMissingBean
	DistributedLockTemplate distributedLockTemplate(LockExecution lockExecution, DistLockProperties properties) {
		return new ExecutionLockTemplate(lockExecution, defaults(properties));
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LockOutsideResilienceAdvice lockOutsideResilienceAdvice() {
		return new LockOutsideResilienceAdvice();
	}

	/**
	 * The advisor and its operation source are created while post-processors are still being registered, too early
	 * to depend on the properties bean; they bind the same settings straight from the environment.
	 */
	static DistLockProperties bindEarly(Environment environment) {
		return Binder.get(environment).bindOrCreate("distlock", DistLockProperties.class);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ConfigurableTransactionManager.class)
	static class TransactionGuardConfiguration {

		@Bean
		@ConditionalOnMissingBean
		static LockTransactionListenerRegistrar lockTransactionListenerRegistrar() {
			return new LockTransactionListenerRegistrar();
		}

	}

	/** Fails start-up, naming the engines and their dependencies, when no engine was configured. */
	@Bean
	@ConditionalOnMissingBean
	static LockEngineRequirement lockEngineRequirement(ObjectProvider<LockEngine> engines, Environment environment,
			ResourceLoader resourceLoader) {
		return new LockEngineRequirement(engines, environment.getProperty("distlock.backend"),
				resourceLoader.getClassLoader());
	}

	/** Fails start-up when a declared read/write lock or permit needs what the configured engine lacks. */
	@Bean
	@ConditionalOnMissingBean
	static LockModeRequirement lockModeRequirement(ObjectProvider<LockEngine> engines,
			ObjectProvider<LockOperationSource> operations) {
		return new LockModeRequirement(engines, operations);
	}

	@Bean
	@ConditionalOnMissingBean
	static LockDefinitionValidator lockDefinitionValidator(ObjectProvider<LockOperationSource> operations) {
		return new LockDefinitionValidator(SingletonSupplier.of(operations::getObject));
	}

}
