package io.github.distlock.execution;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.ConfigurableTransactionManager;

/**
 * Adds distlock's transaction listener to every transaction manager of the application, whoever defined it, so
 * that no transaction inside a locked method can commit while its lock is lost.
 */
public class LockTransactionListenerRegistrar implements BeanPostProcessor {

	private final LockTransactionListener listener = new LockTransactionListener();

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof ConfigurableTransactionManager transactionManager
				&& !transactionManager.getTransactionExecutionListeners().contains(this.listener)) {
			transactionManager.addListener(this.listener);
		}
		return bean;
	}

}
