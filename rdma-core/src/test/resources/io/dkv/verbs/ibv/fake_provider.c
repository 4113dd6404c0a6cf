/*
 * A stand-in for an RNIC's user-space provider, for IbvRequestPathTest: the functions a provider puts in an
 * ibv_context's ops and an ibv_qp_ex / mlx5dv_qp_ex, which read the requests the Java binding wrote exactly as a
 * provider compiled against the installed headers reads them, and note each field in a log the test compares.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

static char text[1 << 20];
static size_t used;

static void note(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(text + used, sizeof(text) - used, format, args);
    va_end(args);
    if (n > 0 && used + n < sizeof(text))
    {
        used += n;
    }
}

const char *fake_log(void)
{
    return text;
}

void fake_clear(void)
{
    used = 0;
    text[0] = 0;
}

static void note_sges(const struct ibv_sge *sg, size_t n)
{
    for (size_t i = 0; i < n; i++)
    {
        note(" sge=%" PRIx64 "/%u/%x", sg[i].addr, sg[i].length, sg[i].lkey);
    }
}

/* A request whose wr_id is 666 is refused: ENOMEM, as a full send queue. */
int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    note("post_send qp=%x\n", qp->qp_num);
    for (; wr != NULL; wr = wr->next)
    {
        if (wr->wr_id == 666)
        {
            *bad = wr;
            return ENOMEM;
        }
        note("send id=%" PRIu64 " op=%d flags=%u imm=%x", wr->wr_id, wr->opcode, wr->send_flags, wr->imm_data);
        switch (wr->opcode)
        {
            case IBV_WR_ATOMIC_CMP_AND_SWP:
            case IBV_WR_ATOMIC_FETCH_AND_ADD:
                note(" atomic=%" PRIx64 "/%x/%" PRIx64 "/%" PRIx64, wr->wr.atomic.remote_addr, wr->wr.atomic.rkey,
                    wr->wr.atomic.compare_add, wr->wr.atomic.swap);
                break;
            case IBV_WR_SEND:
            case IBV_WR_SEND_WITH_IMM:
                if (wr->wr.ud.ah != NULL)
                {
                    note(" ud=%" PRIxPTR "/%x/%x", (uintptr_t)wr->wr.ud.ah, wr->wr.ud.remote_qpn,
                        wr->wr.ud.remote_qkey);
                }
                break;
            default:
                note(" rdma=%" PRIx64 "/%x", wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
        }
        note_sges(wr->sg_list, wr->num_sge);
        note("\n");
    }
    return 0;
}

int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    note("post_recv qp=%x\n", qp->qp_num);
    for (; wr != NULL; wr = wr->next)
    {
        if (wr->wr_id == 666)
        {
            *bad = wr;
            return ENOMEM;
        }
        note("recv id=%" PRIu64, wr->wr_id);
        note_sges(wr->sg_list, wr->num_sge);
        note("\n");
    }
    return 0;
}

/* cq->cqe completions are pending; cq->handle is the QP number they report. */
int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
    int count = 0;
    while (count < n && cq->cqe > 0)
    {
        int i = 3 - cq->cqe;
        struct ibv_wc *e = &wc[count++];
        e->wr_id = 100 + i;
        e->status = i == 1 ? IBV_WC_REM_ACCESS_ERR : IBV_WC_SUCCESS;
        e->opcode = i == 2 ? IBV_WC_RECV_RDMA_WITH_IMM : i == 1 ? IBV_WC_COMP_SWAP : IBV_WC_RDMA_READ;
        e->vendor_err = 0;
        e->byte_len = 64 * (i + 1);
        e->imm_data = 0xabcd0000u + i;
        e->qp_num = cq->handle;
        e->src_qp = 0x77;
        e->wc_flags = i == 2 ? IBV_WC_WITH_IMM : 0;
        cq->cqe--;
    }
    return count;
}

void fake_wr_start(struct ibv_qp_ex *q)
{
    note("start qp=%x\n", q->qp_base.qp_num);
}

int fake_wr_complete(struct ibv_qp_ex *q)
{
    note("complete\n");
    return 0;
}

void fake_wr_abort(struct ibv_qp_ex *q)
{
    note("abort\n");
}

void fake_wr_rdma_read(struct ibv_qp_ex *q, uint32_t rkey, uint64_t remote_addr)
{
    note("read id=%" PRIu64 " flags=%u rdma=%" PRIx64 "/%x", q->wr_id, q->wr_flags, remote_addr, rkey);
}

void fake_wr_rdma_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t remote_addr)
{
    note("write id=%" PRIu64 " flags=%u rdma=%" PRIx64 "/%x", q->wr_id, q->wr_flags, remote_addr, rkey);
}

void fake_wr_rdma_write_imm(struct ibv_qp_ex *q, uint32_t rkey, uint64_t remote_addr, __be32 imm)
{
    note("write_imm id=%" PRIu64 " flags=%u rdma=%" PRIx64 "/%x imm=%x", q->wr_id, q->wr_flags, remote_addr, rkey,
        imm);
}

void fake_wr_send(struct ibv_qp_ex *q)
{
    note("send id=%" PRIu64 " flags=%u", q->wr_id, q->wr_flags);
}

void fake_wr_send_imm(struct ibv_qp_ex *q, __be32 imm)
{
    note("send_imm id=%" PRIu64 " flags=%u imm=%x", q->wr_id, q->wr_flags, imm);
}

void fake_wr_atomic_cmp_swp(struct ibv_qp_ex *q, uint32_t rkey, uint64_t remote_addr, uint64_t compare,
    uint64_t swap)
{
    note("cmp_swp id=%" PRIu64 " flags=%u atomic=%" PRIx64 "/%x/%" PRIx64 "/%" PRIx64, q->wr_id, q->wr_flags,
        remote_addr, rkey, compare, swap);
}

void fake_wr_atomic_fetch_add(struct ibv_qp_ex *q, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{
    note("fetch_add id=%" PRIu64 " flags=%u atomic=%" PRIx64 "/%x/%" PRIu64, q->wr_id, q->wr_flags, remote_addr,
        rkey, add);
}

void fake_wr_set_sge_list(struct ibv_qp_ex *q, size_t num_sge, const struct ibv_sge *sg)
{
    note_sges(sg, num_sge);
    note("\n");
}

void fake_wr_set_inline_data(struct ibv_qp_ex *q, void *addr, size_t length)
{
    note(" inline=%.*s\n", (int)length, (const char *)addr);
}

void fake_wr_set_dc_addr(struct mlx5dv_qp_ex *m, struct ibv_ah *ah, uint32_t dctn, uint64_t key)
{
    note(" dc=%" PRIxPTR "/%x/%" PRIx64, (uintptr_t)ah, dctn, key);
}
