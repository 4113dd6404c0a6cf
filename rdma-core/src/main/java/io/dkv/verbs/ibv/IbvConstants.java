package io.dkv.verbs.ibv;

/**
 * The values of libibverbs' enums and flags ({@code <infiniband/verbs.h>}) the {@code verbs} provider passes and
 * reads, under their C names, and those of mlx5's {@code <infiniband/mlx5dv.h>}: {@code IbvHeaderLayoutTest} compares
 * each with what the installed headers give a C compiler. They are the kernel's ABI, fixed across rdma-core releases.
 */
public final class IbvConstants
{
    // enum ibv_qp_type
    public static final int IBV_QPT_RC = 2;
    public static final int IBV_QPT_UD = 4;
    public static final int IBV_QPT_DRIVER = 0xff;

    // enum ibv_qp_state
    public static final int IBV_QPS_RESET = 0;
    public static final int IBV_QPS_INIT = 1;
    public static final int IBV_QPS_RTR = 2;
    public static final int IBV_QPS_RTS = 3;
    public static final int IBV_QPS_ERR = 6;

    // enum ibv_qp_attr_mask
    public static final int IBV_QP_STATE = 1;
    public static final int IBV_QP_CUR_STATE = 1 << 1;
    public static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    public static final int IBV_QP_PKEY_INDEX = 1 << 4;
    public static final int IBV_QP_PORT = 1 << 5;
    public static final int IBV_QP_QKEY = 1 << 6;
    public static final int IBV_QP_AV = 1 << 7;
    public static final int IBV_QP_PATH_MTU = 1 << 8;
    public static final int IBV_QP_TIMEOUT = 1 << 9;
    public static final int IBV_QP_RETRY_CNT = 1 << 10;
    public static final int IBV_QP_RNR_RETRY = 1 << 11;
    public static final int IBV_QP_RQ_PSN = 1 << 12;
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    public static final int IBV_QP_SQ_PSN = 1 << 16;
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int IBV_QP_CAP = 1 << 19;
    public static final int IBV_QP_DEST_QPN = 1 << 20;

    // enum ibv_qp_init_attr_mask
    public static final int IBV_QP_INIT_ATTR_PD = 1;
    public static final int IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6;

    // enum ibv_qp_create_send_ops_flags
    public static final int IBV_QP_EX_WITH_RDMA_WRITE = 1;
    public static final int IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM = 1 << 1;
    public static final int IBV_QP_EX_WITH_SEND = 1 << 2;
    public static final int IBV_QP_EX_WITH_SEND_WITH_IMM = 1 << 3;
    public static final int IBV_QP_EX_WITH_RDMA_READ = 1 << 4;
    public static final int IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP = 1 << 5;
    public static final int IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD = 1 << 6;

    // enum mlx5dv_qp_init_attr_mask, enum mlx5dv_dc_type
    public static final int MLX5DV_QP_INIT_ATTR_MASK_DC = 1 << 1;
    public static final int MLX5DV_DCTYPE_DCT = 1;
    public static final int MLX5DV_DCTYPE_DCI = 2;

    // enum ibv_gid_type
    public static final int IBV_GID_TYPE_IB = 0;
    public static final int IBV_GID_TYPE_ROCE_V1 = 1;
    public static final int IBV_GID_TYPE_ROCE_V2 = 2;

    // enum ibv_wr_opcode
    public static final int IBV_WR_RDMA_WRITE = 0;
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    public static final int IBV_WR_SEND = 2;
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    public static final int IBV_WR_RDMA_READ = 4;
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;

    // enum ibv_send_flags
    public static final int IBV_SEND_FENCE = 1;
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    public static final int IBV_SEND_SOLICITED = 1 << 2;
    public static final int IBV_SEND_INLINE = 1 << 3;

    // enum ibv_wc_status
    public static final int IBV_WC_SUCCESS = 0;
    public static final int IBV_WC_LOC_LEN_ERR = 1;
    public static final int IBV_WC_LOC_PROT_ERR = 4;
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    public static final int IBV_WC_RETRY_EXC_ERR = 12;
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;

    // enum ibv_wc_opcode
    public static final int IBV_WC_SEND = 0;
    public static final int IBV_WC_RDMA_WRITE = 1;
    public static final int IBV_WC_RDMA_READ = 2;
    public static final int IBV_WC_COMP_SWAP = 3;
    public static final int IBV_WC_FETCH_ADD = 4;
    public static final int IBV_WC_RECV = 1 << 7;
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = IBV_WC_RECV + 1;

    // enum ibv_wc_flags
    public static final int IBV_WC_GRH = 1;
    public static final int IBV_WC_WITH_IMM = 1 << 1;

    // enum ibv_access_flags
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    public static final int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    public static final int IBV_ACCESS_REMOTE_READ = 1 << 2;
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 1 << 3;
    public static final int IBV_ACCESS_RELAXED_ORDERING = 1 << 20;

    // enum ibv_mtu
    public static final int IBV_MTU_256 = 1;
    public static final int IBV_MTU_512 = 2;
    public static final int IBV_MTU_1024 = 3;
    public static final int IBV_MTU_2048 = 4;
    public static final int IBV_MTU_4096 = 5;

    // enum ibv_port_state
    public static final int IBV_PORT_DOWN = 1;
    public static final int IBV_PORT_ACTIVE = 4;

    // IBV_LINK_LAYER_*
    public static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    public static final int IBV_LINK_LAYER_ETHERNET = 2;

    // enum ibv_atomic_cap
    public static final int IBV_ATOMIC_NONE = 0;
    public static final int IBV_ATOMIC_HCA = 1;
    public static final int IBV_ATOMIC_GLOB = 2;

    private IbvConstants()
    {
    }
}
