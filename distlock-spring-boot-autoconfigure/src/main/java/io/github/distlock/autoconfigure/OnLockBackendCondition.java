package io.github.distlock.autoconfigure;

import java.util.Map;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The condition behind {@link ConditionalOnLockBackend}: {@code distlock.backend}, or the only engine present.
 */
class OnLockBackendCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnLockBackend.class.getName());
		LockBackend backend = (attributes != null) ? (LockBackend) attributes.get("value") : null;
		if (backend == null) {
			throw new IllegalStateException("OnLockBackendCondition works through @ConditionalOnLockBackend only, "
					+ "which " + metadata + " does not carry");
		}
		String chosen = context.getEnvironment().getProperty("distlock.backend");
		ClassLoader classLoader = context.getClassLoader();
		if (backend.isChosen(chosen, classLoader)) {
			return ConditionOutcome.match((chosen != null) ? "distlock.backend is " + chosen
					: backend.id() + " is the only lock engine on the class path");
		}
		return ConditionOutcome.noMatch((chosen != null) ? "distlock.backend is " + chosen
				: "several lock engines are on the class path (" + LockBackend.ids(LockBackend.present(classLoader))
						+ ") and distlock.backend names none");
	}

}
