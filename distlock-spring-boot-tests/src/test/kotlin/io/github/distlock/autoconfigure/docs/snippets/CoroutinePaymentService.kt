package io.github.distlock.autoconfigure.docs.snippets

import io.github.distlock.DistributedLock
import io.github.distlock.ReactiveLockContext
import kotlinx.coroutines.reactor.awaitSingle
import org.springframework.stereotype.Service

/** The async and reactive page: a locked `suspend` function reads its fencing token. */
@Service
class CoroutinePaymentService(private val payments: Payments) {

    @DistributedLock(key = "#order.id")
    suspend fun pay(order: Order) {
        val token = ReactiveLockContext.current().awaitSingle().token()
        payments.charge(order, token)
    }

}
