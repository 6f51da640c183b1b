package io.github.distlock.autoconfigure;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure an auto-proxy creator exists, so the lock advisor is applied even when AspectJ is absent or Spring
 * Boot's AOP auto-configuration is switched off: an annotated method must never run unlocked by accident.
 */
class LockProxyRegistrar implements ImportBeanDefinitionRegistrar {

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
	}

}
