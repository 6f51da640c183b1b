package io.github.distlock.testing;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Gives every test class carrying {@link AutoConfigureDistLock} (on itself, a superclass, an enclosing class or a
 * composed annotation) a Redis server of its context's own. Registered in {@code META-INF/spring.factories}.
 */
class DistLockContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		return TestContextAnnotationUtils.hasAnnotation(testClass, AutoConfigureDistLock.class)
				? new EmbeddedRedisContextCustomizer() : null;
	}

}
